"""Live fan-out over real gRPC streams: many watchers of one game each get every event once, in order,
redacted for their own audience, while the server redacts each event once per audience, not per watcher;
a watcher that stops reading delays neither the other watchers nor the game, and is ended."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from engines.registry import get_game
from parlour.client import GameClient
from parlour.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import auth, finish, seated_game, stub

SPECTATORS = 24


async def _watch(target: str, game_id: str, seat: int | None, token: str | None) -> list[game_pb2.Event]:
    channel, games = stub(target)
    request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=0)
    if seat is not None:
        request.seat = seat
    try:
        stream = games.WatchGame(request, metadata=auth(token) if token else None)
        return [reply.event async for reply in stream]
    finally:
        await channel.close()


async def test_many_watchers_cost_one_redaction_per_audience(
    target: str, app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """24 spectators and 2 seats watch a whole game live: each stream has every version once and in order,
    each seat sees its own hand and no other, all spectators get identical events; and the engine redacted
    each event once for all the spectators together, not once per spectator."""
    engine = get_game("oldmen")
    assert engine is not None
    calls: Counter[int | None] = Counter()
    redact = engine.redact

    def counting(event: Any, seat: int | None, *, finished: bool = False) -> Any:
        calls[seat] += 1
        return redact(event, seat, finished=finished)

    monkeypatch.setattr(engine, "redact", counting)
    async with GameClient(target) as client:
        game = await seated_game(client, seats=3, seed=b"fan-out")
        watchers = [asyncio.ensure_future(_watch(target, game.game_id, None, None)) for _ in range(SPECTATORS)]
        watchers += [asyncio.ensure_future(_watch(target, game.game_id, s, game.tokens[s])) for s in (0, 1)]
        await finish(client, game)
        streams = await asyncio.wait_for(asyncio.gather(*watchers), 60)
        last = (await client.game(game.game_id)).version
    for stream in streams:
        assert [e.version for e in stream] == list(range(1, last + 1))
    spectators, seats = streams[:SPECTATORS], streams[SPECTATORS:]
    assert all(stream == spectators[0] for stream in spectators)
    for seat, stream in enumerate(seats):
        hands = {
            e.oldmen.hand_dealt.seat: list(e.oldmen.hand_dealt.cards) for e in stream if e.oldmen.HasField("hand_dealt")
        }
        assert hands[seat] and all(not cards for other, cards in hands.items() if other != seat)
    assert calls[None] == last, f"{calls[None]} spectator redactions for {last} events and {SPECTATORS} spectators"


STALL_S = 1.0


@pytest.fixture
async def stalling_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server that ends a stream after its client has taken nothing for STALL_S seconds."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path, stream_stall_seconds=STALL_S))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


def _never_reading(target: str) -> grpc.aio.Channel:
    """A channel whose streams accept about 1 KiB before the server must wait for the client to read."""
    options = [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
    return grpc.aio.insecure_channel(target, options=options)


async def test_a_watcher_that_never_reads_delays_nobody_and_is_ended(stalling_app: App) -> None:
    """A spectator opens a stream and never reads it. Three other spectators still get every event of the
    whole game as it is played; the game is played to its end in the time a game takes; and once the silent
    stream's buffers are full and it has taken nothing for STALL_S seconds, the server ends it with
    RESOURCE_EXHAUSTED (reason limit/streams) and a sentence saying how to go on; reading it then gives the
    events that were in flight and that status."""
    target = f"127.0.0.1:{stalling_app.grpc_port}"
    silent_channel = _never_reading(target)
    silent_stub = game_service_pb2_grpc.GameServiceStub(silent_channel)
    try:
        async with GameClient(target) as client:
            game = await seated_game(client, seats=3, seed=b"never-reads")
            silent = silent_stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game.game_id, from_version=1))
            await silent.initial_metadata()  # the stream is open (and will never be read until the end)
            others = [asyncio.ensure_future(_watch(target, game.game_id, None, None)) for _ in range(3)]
            started = time.monotonic()
            await finish(client, game)
            played_s = time.monotonic() - started
            streams = await asyncio.wait_for(asyncio.gather(*others), 30)
            last = (await client.game(game.game_id)).version
        for stream in streams:
            assert [e.version for e in stream] == list(range(1, last + 1))
        assert played_s < 60, f"the game took {played_s:.1f} s"
        await asyncio.sleep(STALL_S * 2.5)  # the silent stream's pending write waits: the sweep ends it
        received = []
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            async for reply in silent:
                received.append(reply.event.version)
        assert ended.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert dict(ended.value.trailing_metadata() or ()).get("parlour-error-reason") == "limit/streams"
        assert "stopped reading" in (ended.value.details() or "")
        assert received == list(range(1, len(received) + 1)) and len(received) < last
    finally:
        await silent_channel.close()
