"""Pages and names are bounded by flags of ``parlour serve`` (``--max-games-page``, ``--max-events-page``,
``--max-player-name-length``, ``--max-bot-name-length``, ``--max-api-key-name-length``): a page size over
the maximum gets the maximum (as the proto comments say), a name over its limit is refused with a sentence
naming the flag, and the OpenAPI document states the limits the server was started with."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest

from parlour.v1 import admin_service_pb2 as admin_pb
from parlour.v1 import admin_service_pb2_grpc as admin_grpc
from parlour.v1 import bot_service_pb2 as bot_pb
from parlour.v1 import bot_service_pb2_grpc as bot_grpc
from parlour.v1 import game_service_pb2 as pb
from service.app.sizes import SizeLimits
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import refused, stub

Code = grpc.StatusCode
ADMIN_KEY = "sizes-admin-key-0123456789"
BOT_KEY = "sizes-bot-key-0123456789"
SMALL = {
    "max_games_page": 3,
    "max_events_page": 2,
    "max_player_name_length": 5,
    "max_bot_name_length": 6,
    "max_api_key_name_length": 4,
}


@pytest.fixture
async def small_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server whose pages and names are smaller than the defaults."""
    settings = server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, **SMALL)
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


def test_the_default_pages_are_capped_at_500_games_and_1000_events() -> None:
    sizes = SizeLimits()
    assert (sizes.games_page(100_000), sizes.games_page(0), sizes.games_page(7)) == (500, 50, 7)
    assert (sizes.events_page(100_000), sizes.events_page(0)) == (1000, 100)
    assert SizeLimits(max_games_page=20).games_page(0) == 20  # the default page is never over the maximum
    with pytest.raises(ValueError, match="--max-events-page must be 1 or more"):
        SizeLimits(max_events_page=0)


async def test_a_page_size_above_the_maximum_gets_the_maximum(small_app: App) -> None:
    """ListGames and ListEvents asked for 100,000 give the configured maximum and go on from there, over
    gRPC and REST; a negative size is refused naming the flag."""
    channel, games = stub(f"127.0.0.1:{small_app.grpc_port}")
    async with channel:
        made = [await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3)) for _ in range(4)]
        first = await games.ListGames(pb.ListGamesRequest(page_size=100_000))
        assert len(first.games) == 3 and first.next_page_token
        rest = await games.ListGames(pb.ListGamesRequest(page_size=100_000, page_token=first.next_page_token))
        assert len(rest.games) == 1 and not rest.next_page_token
        assert len((await games.ListGames(pb.ListGamesRequest())).games) == 3  # the default page too
        error = await refused(games.ListGames(pb.ListGamesRequest(page_size=-1)))
        assert error.code() == Code.INVALID_ARGUMENT and "--max-games-page" in (error.details() or "")

        game_id = made[0].game.game_id
        for seat in range(3):
            await games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, seat=seat, player_name=f"p{seat}"))
        events = await games.ListEvents(pb.ListEventsRequest(game_id=game_id, page_size=100_000))
        assert events.last_version > 2
        assert [e.version for e in events.events] == [1, 2] and events.next_version == 3

    async with aiohttp.ClientSession() as session:
        url = f"http://127.0.0.1:{small_app.http_port}/v1/games"
        async with session.get(url, params={"pageSize": "100000"}) as reply:
            assert reply.status == 200
            assert len((await reply.json())["games"]) == 3


async def test_names_longer_than_the_configured_limits_are_refused_naming_the_flag(small_app: App) -> None:
    """A player name of 6 characters, a bot name of 7 and an API key name of 5 are INVALID_ARGUMENT on a
    server started with limits of 5, 6 and 4; names at the limits are taken."""
    channel, games = stub(f"127.0.0.1:{small_app.grpc_port}")
    async with channel:
        game_id = (await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3))).game.game_id
        error = await refused(games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, player_name="sixsix")))
        assert error.code() == Code.INVALID_ARGUMENT
        assert "player_name must be 1 to 5" in (error.details() or "")
        assert "--max-player-name-length" in (error.details() or "")
        await games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, player_name="fiver"))

        bots = bot_grpc.BotServiceStub(channel)
        key = [("x-parlour-bot-key", BOT_KEY)]
        error = await refused(bots.ListAssignments(bot_pb.ListAssignmentsRequest(bot_name="seven77"), metadata=key))
        assert error.code() == Code.INVALID_ARGUMENT and "--max-bot-name-length" in (error.details() or "")
        assert "1 to 6" in (error.details() or "")
        # A name within the limit passes the length check; a read call registers no name, so it is unknown.
        error = await refused(bots.ListAssignments(bot_pb.ListAssignmentsRequest(bot_name="six666"), metadata=key))
        assert error.code() == Code.NOT_FOUND and "there is no bot named 'six666'" in (error.details() or "")

        admin = admin_grpc.AdminServiceStub(channel)
        admin_key = [("x-parlour-admin-key", ADMIN_KEY)]
        error = await refused(admin.CreateApiKey(admin_pb.CreateApiKeyRequest(name="fives"), metadata=admin_key))
        assert error.code() == Code.INVALID_ARGUMENT and "--max-api-key-name-length" in (error.details() or "")
        assert (await admin.CreateApiKey(admin_pb.CreateApiKeyRequest(name="four"), metadata=admin_key)).api_key


def _body(document: dict[str, Any], operation: str) -> dict[str, Any]:
    """The properties of ``operation``'s request body."""
    for verbs in document["paths"].values():
        for spec in verbs.values():
            if spec["operationId"] == operation:
                properties: dict[str, Any] = spec["requestBody"]["content"]["application/json"]["schema"]["properties"]
                return properties
    raise AssertionError(operation)


async def test_the_openapi_document_states_the_configured_name_limits(small_app: App) -> None:
    url = f"http://127.0.0.1:{small_app.http_port}/openapi.json"
    async with aiohttp.ClientSession() as session, session.get(url) as reply:
        document = await reply.json()
    player_name = re.compile(_body(document, "ClaimSeat")["playerName"]["pattern"])
    assert player_name.fullmatch("fiver") and not player_name.fullmatch("sixsix")
    assert _body(document, "RegisterBot")["botName"]["pattern"].endswith("{1,6}$")
    assert _body(document, "CreateApiKey")["name"]["pattern"].endswith("{1,4}$")
