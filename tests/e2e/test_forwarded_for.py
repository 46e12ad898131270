"""Behind a proxy (``--trusted-proxies``): the quotas count the client ``X-Forwarded-For`` names when the
connection comes from a trusted proxy, and the connection's own address otherwise, so a client cannot pick
its quota by sending the header itself. Over real sockets, for gRPC (``x-forwarded-for`` metadata) and
REST (the HTTP header), as Envoy sends them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import grpc
import pytest

from parlour.v1 import game_service_pb2 as pb
from service.api.forwarded import TrustedProxies
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import stub

Code = grpc.StatusCode
NEW_GAME = pb.CreateGameRequest(game="oldmen", seats=3)


@pytest.fixture
async def proxied_app(
    request: pytest.FixtureRequest, redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> AsyncIterator[App]:
    """A server allowing one new game a minute per client, trusting the proxies of the test's parameter."""
    settings = server_settings(
        redis_target, key_prefix, tmp_path, rate_create_games="1/minute", trusted_proxies=request.param
    )
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def _grpc_create(app: App, forwarded: str) -> grpc.StatusCode | str:
    """CreateGame over gRPC with ``x-forwarded-for: forwarded``: OK, or the refusal's code and details."""
    channel, games = stub(f"127.0.0.1:{app.grpc_port}")
    async with channel:
        try:
            await games.CreateGame(NEW_GAME, metadata=[("x-forwarded-for", forwarded)])
        except grpc.aio.AioRpcError as error:
            assert error.code() == Code.RESOURCE_EXHAUSTED, error.details()
            return error.details() or ""
    return Code.OK


async def _rest_create(app: App, forwarded: str) -> int | str:
    """CreateGame over REST with ``X-Forwarded-For: forwarded``: 200, or the refusal's message."""
    async with aiohttp.ClientSession() as session:
        url = f"http://127.0.0.1:{app.http_port}/v1/games"
        body = {"game": "oldmen", "seats": 3}
        async with session.post(url, json=body, headers={"X-Forwarded-For": forwarded}) as reply:
            if reply.status == 200:
                return 200
            assert reply.status == 429, await reply.text()
            message: str = (await reply.json())["message"]
            return message


@pytest.mark.parametrize("proxied_app", ["", "10.0.0.0/8"], indirect=True)
async def test_a_forwarded_address_from_an_untrusted_peer_does_not_change_the_quota(proxied_app: App) -> None:
    """Two different spoofed X-Forwarded-For from 127.0.0.1 (not a trusted proxy) are one client: the
    second game of the minute is refused, counted against 127.0.0.1; the same over REST."""
    assert await _grpc_create(proxied_app, "203.0.113.1") == Code.OK
    refused = await _grpc_create(proxied_app, "203.0.113.2")
    assert isinstance(refused, str) and "your address 127.0.0.1" in refused and "--rate-create-games" in refused
    refused_rest = await _rest_create(proxied_app, "203.0.113.3")
    assert isinstance(refused_rest, str) and "your address 127.0.0.1" in refused_rest


@pytest.mark.parametrize("proxied_app", ["127.0.0.1"], indirect=True)
async def test_forwarded_addresses_from_a_trusted_proxy_get_quotas_of_their_own(proxied_app: App) -> None:
    """From a trusted proxy (127.0.0.1), two forwarded addresses each create their game; a second game
    for the first address is refused naming that address, also when the client put an address of its own
    left of it; over REST the same."""
    assert await _grpc_create(proxied_app, "203.0.113.1") == Code.OK
    assert await _grpc_create(proxied_app, "203.0.113.2") == Code.OK
    refused = await _grpc_create(proxied_app, "198.51.100.9, 203.0.113.1")  # the client wrote the left one
    assert isinstance(refused, str) and "your address 203.0.113.1" in refused
    assert await _rest_create(proxied_app, "203.0.113.3") == 200
    assert await _rest_create(proxied_app, "2001:db8::1") == 200
    refused_rest = await _rest_create(proxied_app, "198.51.100.9, 203.0.113.3")
    assert isinstance(refused_rest, str) and "your address 203.0.113.3" in refused_rest
    refused_rest = await _rest_create(proxied_app, "203.0.113.2")  # one quota for gRPC and REST
    assert isinstance(refused_rest, str) and "your address 203.0.113.2" in refused_rest


def test_the_client_is_the_right_most_address_that_is_not_a_trusted_proxy() -> None:
    proxies = TrustedProxies.parse("10.0.0.0/8, 192.168.1.1")
    assert proxies.client_address("8.8.8.8", ["1.2.3.4"]) == "8.8.8.8"  # not from a proxy: ignored
    assert proxies.client_address("10.1.1.1", []) == "10.1.1.1"  # a proxy that forwards no one
    assert proxies.client_address("10.1.1.1", ["1.2.3.4"]) == "1.2.3.4"
    assert proxies.client_address("10.1.1.1", ["6.6.6.6, 1.2.3.4, 192.168.1.1"]) == "1.2.3.4"  # through two
    assert proxies.client_address("10.1.1.1", ["6.6.6.6", "1.2.3.4"]) == "1.2.3.4"  # headers in order
    assert proxies.client_address("10.1.1.1", ["1.2.3.4:5678"]) == "1.2.3.4"
    assert proxies.client_address("10.1.1.1", ["[2001:db8::1]:443"]) == "2001:db8::1"
    assert proxies.client_address("10.1.1.1", ["::ffff:1.2.3.4"]) == "1.2.3.4"  # one client, one quota
    assert proxies.client_address("::ffff:10.1.1.1", ["1.2.3.4"]) == "1.2.3.4"
    assert proxies.client_address("10.1.1.1", ["1.2.3.4, not-an-address"]) == "10.1.1.1"  # not a proxy's
    assert proxies.client_address("10.1.1.1", ["10.2.2.2"]) == "10.2.2.2"  # every hop a proxy: the first
    assert TrustedProxies().client_address("10.1.1.1", ["1.2.3.4"]) == "10.1.1.1"  # none trusted: never read
    assert TrustedProxies.parse("").networks == ()
    with pytest.raises(ValueError, match=r"--trusted-proxies .* 'ten' is not one"):
        TrustedProxies.parse("10.0.0.0/8,ten")
