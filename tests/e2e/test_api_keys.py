"""API keys for a private server (`--require-api-key`, keys made by the admin), bot names that cannot be
squatted, and seat tokens the admin can revoke. What uses API keys runs on a Redis Cluster too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from parlour.v1 import admin_service_pb2 as admin_pb
from parlour.v1 import admin_service_pb2_grpc as admin_grpc
from parlour.v1 import bot_service_pb2 as bot_pb
from parlour.v1 import bot_service_pb2_grpc as bot_grpc
from parlour.v1 import game_service_pb2 as pb
from service.app.tokens import hash_token
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, client_for, delete_prefix, server_settings, targets
from tests.e2e.helpers import refused, stub

ADMIN_KEY = "keys-admin-key-0123456789"
ADMIN = [("x-parlour-admin-key", ADMIN_KEY)]
Code = grpc.StatusCode
#: For the tests of what API keys do: on every single-Redis target and on a Redis Cluster.
ALSO_ON_A_CLUSTER = pytest.mark.parametrize("redis_target", [*targets(), "cluster"], indirect=True)


@pytest.fixture
async def keyed_app(
    request: pytest.FixtureRequest, redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> AsyncIterator[App]:
    """A server with an admin key and the settings of the test's parameter."""
    overrides = getattr(request, "param", {"require_api_key": True})
    server = build_app(server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, **overrides))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


def _reason(error: grpc.aio.AioRpcError) -> str:
    return str(dict(error.trailing_metadata() or ()).get("parlour-error-reason", ""))


async def _new_key(channel: grpc.aio.Channel, name: str) -> list[tuple[str, str]]:
    reply = await admin_grpc.AdminServiceStub(channel).CreateApiKey(
        admin_pb.CreateApiKeyRequest(name=name), metadata=ADMIN
    )
    return [("x-parlour-api-key", reply.api_key)]


@ALSO_ON_A_CLUSTER
async def test_a_private_server_creates_games_and_seats_only_for_keys_it_issued(keyed_app: App) -> None:
    """Without a key CreateGame and ClaimSeat are UNAUTHENTICATED (auth/missing_api_key); a made-up key is
    auth/bad_api_key; the admin's key works until the admin revokes it; reading needs no key."""
    channel, games = stub(f"127.0.0.1:{keyed_app.grpc_port}")
    async with channel:
        create = pb.CreateGameRequest(game="oldmen", seats=3)
        error = await refused(games.CreateGame(create))
        assert (error.code(), _reason(error)) == (Code.UNAUTHENTICATED, "auth/missing_api_key")
        assert "x-parlour-api-key" in (error.details() or "")
        error = await refused(games.CreateGame(create, metadata=[("x-parlour-api-key", "pk_made-up")]))
        assert (error.code(), _reason(error)) == (Code.UNAUTHENTICATED, "auth/bad_api_key")
        error = await refused(
            admin_grpc.AdminServiceStub(channel).CreateApiKey(admin_pb.CreateApiKeyRequest(name="alice"))
        )
        assert error.code() == Code.UNAUTHENTICATED  # making keys needs the admin key
        alice = await _new_key(channel, "alice")
        game_id = (await games.CreateGame(create, metadata=alice)).game.game_id
        claim = pb.ClaimSeatRequest(game_id=game_id, player_name="p0")
        assert _reason(await refused(games.ClaimSeat(claim))) == "auth/missing_api_key"
        await games.ClaimSeat(claim, metadata=alice)
        assert len((await games.ListGames(pb.ListGamesRequest())).games) == 1
        listed = await admin_grpc.AdminServiceStub(channel).ListApiKeys(admin_pb.ListApiKeysRequest(), metadata=ADMIN)
        assert list(listed.names) == ["alice"]
        await admin_grpc.AdminServiceStub(channel).RevokeApiKey(
            admin_pb.RevokeApiKeyRequest(name="alice"), metadata=ADMIN
        )
        assert _reason(await refused(games.CreateGame(create, metadata=alice))) == "auth/bad_api_key"


async def test_a_key_an_earlier_version_stored_still_authenticates(
    keyed_app: App, redis_target: RedisTarget, key_prefix: str
) -> None:
    """A key kept under the API-key names of earlier versions (single Redis only) creates games after the
    upgrade, is listed, and is revoked."""
    key = "pk_made-by-an-earlier-version"
    client = client_for(redis_target.url)
    await client.hset(f"{key_prefix}:apikeys:by_name", "veteran", hash_token(key))
    await client.hset(f"{key_prefix}:apikeys:by_hash", hash_token(key), "veteran")
    await client.aclose()
    channel, games = stub(f"127.0.0.1:{keyed_app.grpc_port}")
    async with channel:
        create, veteran = pb.CreateGameRequest(game="oldmen", seats=3), [("x-parlour-api-key", key)]
        await games.CreateGame(create, metadata=veteran)
        admin = admin_grpc.AdminServiceStub(channel)
        assert list((await admin.ListApiKeys(admin_pb.ListApiKeysRequest(), metadata=ADMIN)).names) == ["veteran"]
        await admin.RevokeApiKey(admin_pb.RevokeApiKeyRequest(name="veteran"), metadata=ADMIN)
        assert _reason(await refused(games.CreateGame(create, metadata=veteran))) == "auth/bad_api_key"


async def _hello(channel: grpc.aio.Channel, name: str, bot_key: str, metadata: Any = None) -> bot_pb.ConnectResponse:
    call = bot_grpc.BotServiceStub(channel).Connect(metadata=metadata)
    await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(bot_name=name, bot_key=bot_key)))
    reply = await call.read()
    call.cancel()
    assert isinstance(reply, bot_pb.ConnectResponse)
    return reply


@ALSO_ON_A_CLUSTER
async def test_a_bot_name_is_registered_only_with_a_key_and_released_only_by_the_admin(keyed_app: App) -> None:
    """A new bot name without an API key is refused; with one it is registered and no one else's bot key
    takes it; after the admin releases it, another bot key registers it."""
    channel, _ = stub(f"127.0.0.1:{keyed_app.grpc_port}")
    async with channel:
        error = await refused(_hello(channel, "famous", "first-bot-key-0123456789"))
        assert (error.code(), _reason(error)) == (Code.UNAUTHENTICATED, "auth/missing_api_key")
        key = await _new_key(channel, "owner")
        assert (await _hello(channel, "famous", "first-bot-key-0123456789", key)).HasField("welcome")
        assert (await _hello(channel, "famous", "first-bot-key-0123456789")).HasField("welcome")  # known name
        error = await refused(_hello(channel, "famous", "squatter-key-0123456789", key))
        assert (error.code(), _reason(error)) == (Code.PERMISSION_DENIED, "auth/bad_bot_key")
        admin = admin_grpc.AdminServiceStub(channel)
        await admin.ReleaseBotName(admin_pb.ReleaseBotNameRequest(bot_name="famous"), metadata=ADMIN)
        assert (await _hello(channel, "famous", "second-bot-key-0123456789", key)).HasField("welcome")
        error = await refused(_hello(channel, "famous", "first-bot-key-0123456789"))
        assert _reason(error) == "auth/bad_bot_key"


@pytest.mark.parametrize("keyed_app", [{}], indirect=True)
async def test_the_admin_revokes_a_seat_token(keyed_app: App) -> None:
    """After RevokeSeatToken the token neither acts nor sees for the seat, which stays taken."""
    channel, games = stub(f"127.0.0.1:{keyed_app.grpc_port}")
    async with channel:
        game_id = (await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3))).game.game_id
        claimed = await games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, player_name="p0"))
        token = [("authorization", f"Bearer {claimed.seat_token}")]
        await games.GetView(pb.GetViewRequest(game_id=game_id, seat=claimed.seat), metadata=token)
        admin = admin_grpc.AdminServiceStub(channel)
        request = admin_pb.RevokeSeatTokenRequest(game_id=game_id, seat=claimed.seat)
        await admin.RevokeSeatToken(request, metadata=ADMIN)
        error = await refused(games.GetView(pb.GetViewRequest(game_id=game_id, seat=claimed.seat), metadata=token))
        assert (error.code(), _reason(error)) == (Code.UNAUTHENTICATED, "auth/bad_token")
        summary = (await games.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert summary.seats[claimed.seat].claimed and summary.seats[claimed.seat].player_name == "p0"
        error = await refused(games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, seat=claimed.seat, player_name="x")))
        assert _reason(error) == "seat/taken"


@ALSO_ON_A_CLUSTER
@pytest.mark.parametrize("keyed_app", [{"rate_create_games": "2/minute"}], indirect=True)
async def test_quotas_follow_the_api_key_not_the_address(keyed_app: App) -> None:
    """Two clients with keys on one address each get their own quota of games; without a key the address's
    quota applies; a key sent to a server that does not require keys is still checked."""
    channel, games = stub(f"127.0.0.1:{keyed_app.grpc_port}")
    async with channel:
        create = pb.CreateGameRequest(game="oldmen", seats=3)
        first, second = await _new_key(channel, "first"), await _new_key(channel, "second")
        for key in (first, second):
            for _ in range(2):
                await games.CreateGame(create, metadata=key)
            error = await refused(games.CreateGame(create, metadata=key))
            assert error.code() == Code.RESOURCE_EXHAUSTED and "your API key" in (error.details() or "")
        for _ in range(2):
            await games.CreateGame(create)
        assert _reason(await refused(games.CreateGame(create))) == "limit/rate"
        assert (
            _reason(await refused(games.CreateGame(create, metadata=[("x-parlour-api-key", "bogus")])))
            == "auth/bad_api_key"
        )
