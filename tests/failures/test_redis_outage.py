"""While Redis is away, calls fail at once with UNAVAILABLE and one sentence, health says NOT_SERVING;
when it is back, calls succeed at the first try, and open WatchGame streams go on with what they missed.

The Redis is a real server process of the test's own, stopped and started again on the same files.
"""

from __future__ import annotations

import asyncio

import aiohttp
import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from parlour.client import GameClient, ParlourError
from parlour.v1 import game_pb2
from service.bootstrap import App
from service.store.embedded import RedisProcess
from tests.e2e.helpers import seated_game

SENTENCE = "the game store is not reachable; retry"


async def _until_health(target: str, status: int) -> None:
    """Wait until gRPC health reports ``status`` (the server asks Redis every 50 ms)."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for _ in range(400):
            reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
            if reply.status == status:
                return
            await asyncio.sleep(0.05)
    raise AssertionError(f"health never reported {status}")


async def _readyz(app: App) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{app.http_port}/readyz") as response,
    ):
        return response.status, (await response.json())["status"]


async def _first_move(client: GameClient, game_id: str, tokens: list[str]) -> game_pb2.GameView:
    view = await client.view(game_id)
    seat = view.pending_seats[0]
    mine = await client.view(game_id, seat, tokens[seat])
    await client.submit(game_id, seat, tokens[seat], mine.legal_commands[0], expected_version=mine.version)
    return await client.view(game_id)


async def test_calls_fail_fast_with_a_sentence_and_health_follows_redis(
    outage_app: App, redis_process: RedisProcess
) -> None:
    target = f"127.0.0.1:{outage_app.grpc_port}"
    async with GameClient(target) as client:
        game = await seated_game(client)
        for _ in range(20):  # several pooled connections, each broken by the outage
            await asyncio.gather(*(client.view(game.game_id) for _ in range(8)))
        redis_process.stop()
        for call in (client.view(game.game_id), client.list_games(), client.create_game("oldmen", 4)):
            with pytest.raises(ParlourError) as refused:
                await asyncio.wait_for(call, 10)
            assert refused.value.code == grpc.StatusCode.UNAVAILABLE
            assert refused.value.reason == "store/unavailable"
            assert refused.value.message == SENTENCE
        await _until_health(target, health_pb2.HealthCheckResponse.NOT_SERVING)
        assert await _readyz(outage_app) == (503, "NOT_SERVING")

        redis_process.start()
        views = await asyncio.gather(*(client.view(game.game_id) for _ in range(16)))
        assert all(v.game_id == game.game_id for v in views)
        await _first_move(client, game.game_id, game.tokens)
        await _until_health(target, health_pb2.HealthCheckResponse.SERVING)
        assert await _readyz(outage_app) == (200, "SERVING")


async def test_a_watch_stream_goes_on_after_redis_returns(outage_app: App, redis_process: RedisProcess) -> None:
    target = f"127.0.0.1:{outage_app.grpc_port}"
    async with GameClient(target) as client:
        game = await seated_game(client)
        start = (await client.view(game.game_id)).version
        seen: list[int] = []
        caught_up = asyncio.Event()

        async def watch() -> None:
            async for event in client.watch(game.game_id, from_version=1):
                seen.append(event.version)
                if event.version == start:
                    caught_up.set()
                if event.version > start:
                    return

        watcher = asyncio.create_task(watch())
        await asyncio.wait_for(caught_up.wait(), 10)
        redis_process.stop()
        with pytest.raises(ParlourError):
            await client.view(game.game_id)
        redis_process.start()
        await _first_move(client, game.game_id, game.tokens)
        try:
            await asyncio.wait_for(watcher, 30)
        except ParlourError as ended:  # the stream may end instead, as UNAVAILABLE, for the client to resume
            assert ended.code == grpc.StatusCode.UNAVAILABLE
            assert ended.message == SENTENCE
        else:
            assert seen == list(range(1, start + 2))
