"""A ladder's limits on its bots: one that keeps timing out is paused and told why (and resumed by
joining again), one API key registers at most ``max_bots_per_key`` bots, and one client registers at most
``--rate-joins`` bots a minute."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from parlour.v1 import admin_service_pb2 as admin_pb
from parlour.v1 import admin_service_pb2_grpc as admin_grpc
from parlour.v1 import clock_pb2
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings, targets
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY, SilentBot, ladder_bot, standings

ADMIN = [("x-parlour-admin-key", ADMIN_KEY)]
PLAYERS = ["p1", "p2", "p3"]


async def _ladder(channel: grpc.aio.Channel, **settings: int) -> str:
    """A started Old Men ladder of tables of 3 with the given settings; its id."""
    stub = pb_grpc.TournamentServiceStub(channel)
    ladder = pb.TournamentSettings(
        name="ladder", game="oldmen", table_size=3, format=pb.TOURNAMENT_FORMAT_LADDER, **settings
    )
    if settings.get("pause_after_timeouts"):
        ladder.time_control.CopyFrom(clock_pb2.TimeControl(move_ms=1000, max_timeouts=1))
    made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=ladder), metadata=ADMIN)
    ladder_id = made.tournament.tournament_id
    await stub.StartTournament(pb.StartTournamentRequest(tournament_id=ladder_id), metadata=ADMIN)
    return ladder_id


async def _join(channel: grpc.aio.Channel, ladder_id: str, name: str, api_key: str = "") -> None:
    request = pb.RegisterBotRequest(tournament_id=ladder_id, bot_name=name, bot_key=BOT_KEY)
    metadata = [("x-parlour-api-key", api_key)] if api_key else []
    await pb_grpc.TournamentServiceStub(channel).RegisterBot(request, metadata=metadata)


async def _until(condition: object, what: str, seconds: float = 60) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await condition():  # type: ignore[operator]  # an async predicate
        assert loop.time() < deadline, f"{what} did not happen within {seconds} s"
        await asyncio.sleep(0.1)


async def _log(channel: grpc.aio.Channel, ladder_id: str, tables: int) -> list[pb.TournamentEvent]:
    """The ladder's log up to its ``tables``-th TableScheduled."""
    events: list[pb.TournamentEvent] = []
    stream = pb_grpc.TournamentServiceStub(channel).WatchTournament(pb.WatchTournamentRequest(tournament_id=ladder_id))
    async for reply in stream:
        events.append(reply.event)
        if sum(e.HasField("table_scheduled") for e in events) >= tables:
            break
    stream.cancel()
    return events


@pytest.mark.parametrize("redis_target", [*targets(), "cluster"], indirect=True)  # a ladder runs on a cluster too
async def test_a_bot_that_keeps_timing_out_is_paused_told_why_and_resumed_when_it_joins_again(
    admin_app: App,
) -> None:
    """Three bots that play and one that never moves share a ladder whose clock plays for a bot after a second.
    After two games in a row in which the server played for it, the sleeper is paused: BotPaused in the
    log with the reason, a Notice on its open connection saying why and what to do, ``paused`` in the
    standings, and no table for it since. Registering again resumes it: it is seated again."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    stop = asyncio.Event()
    async with grpc.aio.insecure_channel(target) as channel:
        ladder_id = await _ladder(channel, pause_after_timeouts=2)
        sleeper = SilentBot(channel, "sleeper")
        await sleeper.welcomed()
        await _join(channel, ladder_id, sleeper.name)
        runs = [ladder_bot(target, ladder_id, name, stop) for name in PLAYERS]
        try:

            async def paused() -> bool:
                return any(s.paused for s in (await standings(target, ladder_id)).standings)

            await _until(paused, "the pause")
            await _until(lambda: asyncio.sleep(0, bool(sleeper.notices())), "the notice", 10)
            at_pause = await standings(target, ladder_id)

            async def played_on() -> bool:
                later = await standings(target, ladder_id)
                return later.tournament.games_finished >= at_pause.tournament.games_scheduled + 2

            await _until(played_on, "two more games")  # the three others play on
            await _join(channel, ladder_id, sleeper.name)
            resumed = await standings(target, ladder_id)
            assert not any(s.paused for s in resumed.standings)

            async def seated_again() -> bool:
                return (
                    await standings(target, ladder_id)
                ).tournament.games_scheduled > resumed.tournament.games_scheduled

            await _until(seated_again, "a table after the resume")
            final = await standings(target, ladder_id)
            log = await _log(channel, ladder_id, final.tournament.games_scheduled)
        finally:
            stop.set()
            await asyncio.gather(*runs, return_exceptions=True)
            await sleeper.close()
    [notice] = sleeper.notices()
    assert notice.tournament_id == ladder_id and notice.reason == "ladder/paused"
    assert "in 2 of its games in a row" in notice.message and "registers again" in notice.message
    kinds = [e.WhichOneof("kind") for e in log]
    pause = kinds.index("bot_paused")
    assert log[pause].bot_paused.bot_name == "sleeper" and log[pause].bot_paused.reason == notice.message
    finished = [e.table_finished for e in log[:pause] if e.HasField("table_finished")]
    assert [list(f.timeouts)[:1] for f in finished[-2:]] != [[0], [0]]  # the sleeper's clock ran out in both
    resume = next(i for i, e in enumerate(log) if i > pause and e.HasField("bot_registered"))
    assert log[resume].bot_registered.bot_name == "sleeper"
    between = [e.table_scheduled for e in log[pause:resume] if e.HasField("table_scheduled")]
    assert all("sleeper" not in t.seats for t in between)
    assert any("sleeper" in e.table_scheduled.seats for e in log[resume:] if e.HasField("table_scheduled"))


async def test_one_api_key_registers_at_most_max_bots_per_key_bots(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """With max_bots_per_key 2, a key's third bot is refused (tournament/full, saying why) and nothing is
    registered; another key, and the admin, still register bots."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, require_api_key=True))
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
            admin = admin_grpc.AdminServiceStub(channel)
            keys = [
                (await admin.CreateApiKey(admin_pb.CreateApiKeyRequest(name=name), metadata=ADMIN)).api_key
                for name in ("club", "other")
            ]
            ladder_id = await _ladder(channel, max_bots_per_key=2)
            bots = {"a1": keys[0], "a2": keys[0], "a3": keys[0], "b1": keys[1]}
            for name, key in bots.items():  # a bot connected with an API key is its key's for good
                connected = SilentBot(channel, name, key)
                await connected.welcomed()
                await connected.close()
            for name in ("a1", "a2", "a1", "b1"):  # registering again is no new bot
                await _join(channel, ladder_id, name, bots[name])
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _join(channel, ladder_id, "a3", keys[0])
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "your API key has registered 2 bots in this tournament" in (refused.value.details() or "")
            request = pb.RegisterBotRequest(tournament_id=ladder_id, bot_name="a3", bot_key=BOT_KEY)
            await pb_grpc.TournamentServiceStub(channel).RegisterBot(request, metadata=ADMIN)
        rows = {s.bot_name for s in (await standings(f"127.0.0.1:{server.grpc_port}", ladder_id)).standings}
        assert rows == {"a1", "a2", "b1", "a3"}
    finally:
        await server.stop(grace=0)
        await delete_prefix(redis_target.url, key_prefix)


async def test_registering_bots_beyond_the_rate_of_joins_is_resource_exhausted(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """With --rate-joins 3/minute, a client's fourth RegisterBot within a minute is refused naming the
    flag and when to retry, and registers nothing."""
    settings = server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, rate_joins="3/minute")
    server = build_app(settings)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
            ladder_id = await _ladder(channel)
            connected = [SilentBot(channel, name) for name in ("j1", "j2", "j3", "j4")]  # held while connected
            for bot in connected:
                await bot.welcomed()
            for bot in connected[:3]:
                await _join(channel, ladder_id, bot.name)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _join(channel, ladder_id, "j4")
            for bot in connected:
                await bot.close()
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        details = refused.value.details() or ""
        assert "--rate-joins" in details and "3 per minute" in details and "retry in" in details
        assert {s.bot_name for s in (await standings(f"127.0.0.1:{server.grpc_port}", ladder_id)).standings} == {
            "j1",
            "j2",
            "j3",
        }
    finally:
        await server.stop(grace=0)
        await delete_prefix(redis_target.url, key_prefix)
