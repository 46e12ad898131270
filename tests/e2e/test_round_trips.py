"""A command costs one Redis round trip: SubmitCommand over gRPC, counted at the Redis connections.

Every request sent to Redis (a command, or a pipeline of them) goes out through a connection's
``send_packed_command``; a send made while a SubmitCommand call runs is attributed to that call by its
request id (the call's context carries it; the server's background tasks carry none)."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from redis.asyncio.connection import AbstractConnection

from engines.contract import fold, step
from engines.envelope import wrap_command
from engines.oldmen import OLDMEN
from parlour.v1 import game_service_pb2 as pb
from service.api import request_ids
from service.bootstrap import App
from service.store import wire
from tests.e2e.helpers import auth, stub

SEATS = 4


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Requests sent to Redis, by the request id of the call that sent them."""
    sent: Counter[str] = Counter()
    for connection_class in (AbstractConnection, wire._FastCommands):  # redis-py's send, and the server's own
        monkeypatch.setattr(connection_class, "send_packed_command", _counting(connection_class, sent))
    yield sent


def _counting(connection_class: type[AbstractConnection], sent: Counter[str]) -> Any:
    """``connection_class``'s own send, counting each call by the request id of the call that makes it."""
    original = connection_class.send_packed_command

    async def counting(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        request_id = request_ids._CURRENT.get()
        if request_id is not None:
            sent[request_id] += 1
        await original(self, command, check_health)

    return counting


async def test_a_command_makes_one_redis_round_trip(app: App, target: str, round_trips: Counter[str]) -> None:
    """Each SubmitCommand of a whole game sends Redis one request (the append script), except the few
    that also write a snapshot or end the game (which also files the game under its new status)."""
    channel, games = stub(target)
    seed = b"round-trips".ljust(16, b".")
    async with channel:
        summary = (await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=SEATS, seed=seed))).game
        tokens = []
        for seat in range(SEATS):
            claim = pb.ClaimSeatRequest(game_id=summary.game_id, seat=seat, player_name=f"p{seat}")
            tokens.append((await games.ClaimSeat(claim)).seat_token)
        state, version = fold(OLDMEN, OLDMEN.start(OLDMEN.spec.config(SEATS), seed)), summary.version
        rng, counted = random.Random(5), []
        while not OLDMEN.is_over(state):
            seat = rng.choice(sorted(OLDMEN.pending(state)))
            command = rng.choice(OLDMEN.legal_commands(state, seat))
            request = pb.SubmitCommandRequest(
                game_id=summary.game_id,
                seat=seat,
                command=wrap_command(OLDMEN, command),
                command_id=uuid.uuid4().hex,
                expected_version=version,
            )
            call_id = f"move-{version}"
            reply = await games.SubmitCommand(request, metadata=[*auth(tokens[seat]), ("x-request-id", call_id)])
            snapshot = reply.version // app.settings.snapshot_every > version // app.settings.snapshot_every
            state = fold(OLDMEN, step(OLDMEN, state, seat, command), state)
            version = reply.version
            counted.append((round_trips[call_id], snapshot, OLDMEN.is_over(state)))
    plain = [sent for sent, snapshot, last in counted if not snapshot and not last]
    assert len(plain) > 50 and set(plain) == {1}, Counter(plain)
    assert all(sent <= 2 for sent, snapshot, last in counted if snapshot and not last)
    # The last one: the append, and the index moving the game to finished (announced, metadata read, filed
    # by time and by status): once per game.
    assert counted[-1][0] <= 5
