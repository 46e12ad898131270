"""A tournament's field cannot be flooded: registering a name no bot is connected with needs the admin
key, and a tournament takes at most the server's maximum number of bots."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from parlour.v1 import bot_service_pb2 as bot_pb
from parlour.v1 import bot_service_pb2_grpc as bot_grpc
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY

ADMIN = [("x-parlour-admin-key", ADMIN_KEY)]


@pytest.fixture
async def small_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server whose tournaments take at most 4 bots."""
    settings = server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, max_tournament_bots=4)
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def _tournament(stub: pb_grpc.TournamentServiceStub) -> str:
    settings = pb.TournamentSettings(name="t", game="oldmen", table_size=3, format=pb.TOURNAMENT_FORMAT_SWISS, rounds=1)
    made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings), metadata=ADMIN)
    return str(made.tournament.tournament_id)


async def _connect(channel: grpc.aio.Channel, name: str) -> grpc.aio.StreamStreamCall:  # type: ignore[type-arg]  # grpc's stubs make calls generic over message types this code does not name
    """Connect as bot ``name`` until welcomed (which registers the name with BOT_KEY while connected)."""
    call = bot_grpc.BotServiceStub(channel).Connect()
    await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(bot_name=name, bot_key=BOT_KEY)))
    reply = await call.read()
    assert reply.HasField("welcome")
    return call


async def test_names_no_bot_has_connected_with_are_refused_without_the_admin_key(small_app: App) -> None:
    """A flood of made-up names registers nothing (NOT_FOUND, saying to connect first); a connected bot
    registers with its own key; a wrong admin key is refused rather than ignored."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{small_app.grpc_port}") as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        tid = await _tournament(stub)
        for n in range(20):
            request = pb.RegisterBotRequest(tournament_id=tid, bot_name=f"flood-{n}", bot_key=BOT_KEY)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.RegisterBot(request)
            assert refused.value.code() == grpc.StatusCode.NOT_FOUND
            assert "connect it once" in (refused.value.details() or "")
        wrong = [("x-parlour-admin-key", "not-the-key")]
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.RegisterBot(
                pb.RegisterBotRequest(tournament_id=tid, bot_name="x", bot_key=BOT_KEY), metadata=wrong
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        bot = await _connect(channel, "real-bot")
        reply = await stub.RegisterBot(pb.RegisterBotRequest(tournament_id=tid, bot_name="real-bot", bot_key=BOT_KEY))
        bot.cancel()
        assert list(reply.tournament.bots) == ["real-bot"]


async def test_a_tournament_takes_at_most_the_servers_maximum_of_bots(small_app: App) -> None:
    """With --max-tournament-bots 4 the fifth registration is FAILED_PRECONDITION naming the limit, even
    with the admin key, and the field stays at four."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{small_app.grpc_port}") as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        tid = await _tournament(stub)
        for n in range(4):
            await stub.RegisterBot(
                pb.RegisterBotRequest(tournament_id=tid, bot_name=f"bot-{n}", bot_key=BOT_KEY), metadata=ADMIN
            )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.RegisterBot(
                pb.RegisterBotRequest(tournament_id=tid, bot_name="bot-4", bot_key=BOT_KEY), metadata=ADMIN
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "at most 4 bots" in (refused.value.details() or "")
        standings = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tid))
        assert len(standings.tournament.bots) == 4
