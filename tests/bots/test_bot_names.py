"""Bot names on an open server (no --require-api-key) cannot be flooded or squatted: a read call registers
nothing, a name first connected without an API key is held only while its bot is connected (so a client
holds at most its --max-streams-per-client names), and a name is the key's for good once its bot enters a
tournament or connects with an API key, or the admin registers it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from parlour.v1 import admin_service_pb2 as admin_pb
from parlour.v1 import admin_service_pb2_grpc as admin_grpc
from parlour.v1 import bot_service_pb2 as pb
from parlour.v1 import bot_service_pb2_grpc as pb_grpc
from parlour.v1 import tournament_service_pb2 as tour_pb
from parlour.v1 import tournament_service_pb2_grpc as tour_grpc
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY

ADMIN = [("x-parlour-admin-key", ADMIN_KEY)]
OTHER_KEY = "another-bot-key-0123456789"
STREAMS = 4


@pytest.fixture
async def open_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """An open server (no API key required) with an admin key, where a client holds at most STREAMS
    streams."""
    settings = server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, max_streams_per_client=STREAMS)
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


class _Bot:
    """One bot stream: Hello sent, Welcome (or the refusal) read."""

    def __init__(self, channel: grpc.aio.Channel, name: str, key: str, metadata: Any = None) -> None:
        self.call = pb_grpc.BotServiceStub(channel).Connect(metadata=metadata)
        self.hello = pb.Hello(bot_name=name, bot_key=key)

    async def welcomed(self) -> bool:
        """True once welcomed; raises the refusal."""
        await self.call.write(pb.ConnectRequest(hello=self.hello))
        reply = await asyncio.wait_for(self.call.read(), 30)
        return isinstance(reply, pb.ConnectResponse) and reply.HasField("welcome")

    async def close(self) -> None:
        """Hang up and wait until the server has seen the stream end."""
        await self.call.done_writing()
        while await asyncio.wait_for(self.call.read(), 30) is not grpc.aio.EOF:
            pass


async def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    reason = str(dict(refused.value.trailing_metadata() or ()).get("parlour-error-reason", ""))
    return refused.value.code(), reason


async def _known(app: App, name: str) -> bool:
    """Whether the server knows a bot named ``name`` (an assignments read with its key answers)."""
    try:
        await app.bots.assignments(name, BOT_KEY)  # type: ignore[union-attr]  # the app's bots are set in this test's server
    except Exception as error:
        assert getattr(error, "reason", "") == "bot/unknown", error
        return False
    return True


async def _new_tournament(tournaments: tour_grpc.TournamentServiceStub) -> str:
    """A one-round Old Men round robin, created by the admin; its id."""
    settings = tour_pb.TournamentSettings(
        name="t", game="oldmen", table_size=3, format=tour_pb.TOURNAMENT_FORMAT_ROUND_ROBIN, rounds=1
    )
    made = await tournaments.CreateTournament(tour_pb.CreateTournamentRequest(settings=settings), metadata=ADMIN)
    return made.tournament.tournament_id


async def _bot_hashes(app: App) -> list[bytes]:
    pattern = f"{app.settings.key_prefix}:{{b:*}}:bot"
    return [key async for key in app.redis.client.scan_iter(match=pattern)]


async def test_a_read_call_never_registers_a_name(open_app: App) -> None:
    """ListAssignments for a new name is NOT_FOUND (bot/unknown) and stores nothing, however many names a
    client makes up; the name stays free for the first bot that connects with it."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{open_app.grpc_port}") as channel:
        stub = pb_grpc.BotServiceStub(channel)
        for n in range(50):
            request = pb.ListAssignmentsRequest(bot_name=f"made-up-{n}")
            code, reason = await _refusal(stub.ListAssignments(request, metadata=[("x-parlour-bot-key", OTHER_KEY)]))
            assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "bot/unknown")
        assert await _bot_hashes(open_app) == []
        bot = _Bot(channel, "made-up-0", BOT_KEY)
        assert await bot.welcomed()
        await bot.close()


async def test_a_name_connected_without_an_api_key_is_held_only_while_connected(open_app: App) -> None:
    """While its bot is connected the name is refused to another key, and its assignments can be read; once
    the bot hangs up the name is forgotten and another key connects with it."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{open_app.grpc_port}") as channel:
        first = _Bot(channel, "passing", BOT_KEY)
        assert await first.welcomed()
        squatter = _Bot(channel, "passing", OTHER_KEY)
        assert await _refusal(squatter.welcomed()) == (grpc.StatusCode.PERMISSION_DENIED, "auth/bad_bot_key")
        assert await _known(open_app, "passing")
        await first.close()
        assert not await _known(open_app, "passing")
        assert await _bot_hashes(open_app) == []
        second = _Bot(channel, "passing", OTHER_KEY)
        assert await second.welcomed()
        await second.close()


async def test_a_client_holds_no_more_names_than_its_streams(open_app: App) -> None:
    """With --max-streams-per-client 4, a client connecting ten new names at once is welcomed for four
    and refused (limit/streams) for the rest; after it hangs up no name is left registered."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{open_app.grpc_port}") as channel:
        bots = [_Bot(channel, f"flood-{n}", BOT_KEY) for n in range(10)]
        outcomes = await asyncio.gather(*(bot.welcomed() for bot in bots), return_exceptions=True)
        welcomed = [bot for bot, outcome in zip(bots, outcomes, strict=True) if outcome is True]
        refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert len(welcomed) == STREAMS and len(refused) == 10 - STREAMS
        assert all(error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for error in refused)
        assert len(await _bot_hashes(open_app)) == STREAMS
        for bot in welcomed:
            await bot.close()
        assert await _bot_hashes(open_app) == []


async def test_a_name_is_the_keys_for_good_once_in_a_tournament_or_connected_with_an_api_key(open_app: App) -> None:
    """A connected bot that registers itself for a tournament keeps its name after it hangs up (the
    tournament's seats go to that name); so does a bot that connected with an API key, and one the admin
    registered; none of these names is taken by another key, and the admin can release one."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{open_app.grpc_port}") as channel:
        tournaments = tour_grpc.TournamentServiceStub(channel)
        tid = await _new_tournament(tournaments)
        entrant = _Bot(channel, "entrant", BOT_KEY)
        assert await entrant.welcomed()
        await tournaments.RegisterBot(
            tour_pb.RegisterBotRequest(tournament_id=tid, bot_name="entrant", bot_key=BOT_KEY)
        )
        await entrant.close()
        admin = admin_grpc.AdminServiceStub(channel)
        api_key = (await admin.CreateApiKey(admin_pb.CreateApiKeyRequest(name="club"), metadata=ADMIN)).api_key
        keyed = _Bot(channel, "keyed", BOT_KEY, metadata=[("x-parlour-api-key", api_key)])
        assert await keyed.welcomed()
        await keyed.close()
        request = tour_pb.RegisterBotRequest(tournament_id=tid, bot_name="listed", bot_key=BOT_KEY)
        await tournaments.RegisterBot(request, metadata=ADMIN)
        for name in ("entrant", "keyed", "listed"):
            assert await _known(open_app, name), name
            squatter = _Bot(channel, name, OTHER_KEY)
            assert await _refusal(squatter.welcomed()) == (grpc.StatusCode.PERMISSION_DENIED, "auth/bad_bot_key")
        await admin.ReleaseBotName(admin_pb.ReleaseBotNameRequest(bot_name="keyed"), metadata=ADMIN)
        taker = _Bot(channel, "keyed", OTHER_KEY)
        assert await taker.welcomed()
        await taker.close()


async def test_a_bot_that_hung_up_cannot_be_entered_for_it(open_app: App) -> None:
    """RegisterBot without the admin key for a name whose bot has hung up (its hold let go) is NOT_FOUND
    saying to connect it first; the field stays empty."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{open_app.grpc_port}") as channel:
        tournaments = tour_grpc.TournamentServiceStub(channel)
        tid = await _new_tournament(tournaments)
        gone = _Bot(channel, "gone", BOT_KEY)
        assert await gone.welcomed()
        await gone.close()
        request = tour_pb.RegisterBotRequest(tournament_id=tid, bot_name="gone", bot_key=BOT_KEY)
        assert await _refusal(tournaments.RegisterBot(request)) == (grpc.StatusCode.NOT_FOUND, "bot/unknown")
        standings = await tournaments.GetStandings(tour_pb.GetStandingsRequest(tournament_id=tid))
        assert list(standings.tournament.bots) == []
