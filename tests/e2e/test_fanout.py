"""Live fan-out over real gRPC streams: many watchers of one game each get every event once, in order,
redacted for their own audience, while the server redacts each event once per audience, not per watcher."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from engines.registry import get_game
from parlour.client import GameClient
from parlour.v1 import game_pb2, game_service_pb2
from service.bootstrap import App
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
