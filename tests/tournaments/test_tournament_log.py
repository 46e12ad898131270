"""A tournament's log is kept and tailed like a game's: a watcher on one server gets each event another
server appends as it is appended, and a scheduler's step sent again is recorded once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, server_settings
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY, create_and_register


@pytest.fixture
async def second_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """Another server process's worth of server on the same Redis and key prefix as ``admin_app``."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path / "second", admin_key=ADMIN_KEY))
    await server.start()
    yield server
    await server.stop(grace=0)


async def test_a_watcher_on_one_server_sees_registrations_on_another_as_they_happen(
    admin_app: App, second_app: App
) -> None:
    """WatchTournament on the second server: the history first, then each bot registered on the first
    server, live, with the tournament as it then is (that the tail is woken, not polling, is the store
    contract's test; timings are not asserted here)."""
    first, second = f"127.0.0.1:{admin_app.grpc_port}", f"127.0.0.1:{second_app.grpc_port}"
    tid = await create_and_register(first, ["a"])
    admin = [("x-parlour-admin-key", ADMIN_KEY)]
    async with grpc.aio.insecure_channel(first) as writing, grpc.aio.insecure_channel(second) as watching:
        registry = pb_grpc.TournamentServiceStub(writing)
        stream = pb_grpc.TournamentServiceStub(watching).WatchTournament(pb.WatchTournamentRequest(tournament_id=tid))
        history = [await stream.read(), await stream.read()]
        assert [r.event.version for r in history] == [1, 2]
        assert history[1].event.bot_registered.bot_name == "a"
        for number, name in enumerate(["b", "c", "d", "e", "f"], start=3):
            await asyncio.sleep(0.03 * number)  # the watcher waits for a live event (at any phase)
            request = pb.RegisterBotRequest(tournament_id=tid, bot_name=name, bot_key=BOT_KEY)
            registered = asyncio.ensure_future(registry.RegisterBot(request, metadata=admin))
            reply = await asyncio.wait_for(stream.read(), timeout=5)
            await registered
            assert (reply.event.version, reply.event.bot_registered.bot_name) == (number, name)
            assert list(reply.tournament.bots) == ["a", "b", "c", "d", "e", "f"][: number - 1]
        stream.cancel()


async def test_a_scheduler_step_sent_again_is_recorded_once(admin_app: App) -> None:
    """The same step (a round's start) appended twice, the second time at the version it was decided on,
    is in the log once; a different step at that version is refused."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    tid = await create_and_register(target, ["a", "b", "c"])
    tournaments = admin_app.tournaments
    assert tournaments is not None
    version = (await tournaments.load(tid)).version
    step = pb.TournamentEvent(round_started=pb.RoundStarted(round=2))
    assert await tournaments.append(tid, step, version) is True
    assert await tournaments.append(tid, step, version) is True, "sent again after a lost reply"
    other = pb.TournamentEvent(round_started=pb.RoundStarted(round=3))
    assert await tournaments.append(tid, other, version) is False
    state = await tournaments.load(tid)
    assert (state.version, state.round) == (version + 1, 2)
