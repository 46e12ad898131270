"""The clock keeper works from the change it is handed: the moves of a command are charged from the
stored events in memory, without reading the log back."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from service.app.clocks import ClockKeeper
from service.app.games import Games
from service.app.time_control import TimeControl
from service.store.clocks import RedisClocks
from service.store.keys import Keys
from service.store.port import StoredEvent
from service.store.redis_store import RedisEventStore

_clock = itertools.count(1_000_000, 7)


class ReadCountingStore(RedisEventStore):
    """The Redis store, counting the log reads made after ``counting`` is switched on."""

    counting = False
    reads = 0

    async def read(self, game_id: str, from_version: int, limit: int) -> list[StoredEvent]:
        if self.counting:
            self.reads += 1
        return await super().read(game_id, from_version, limit)


@pytest.fixture
async def store(redis_client: aioredis.Redis, key_prefix: str) -> AsyncIterator[ReadCountingStore]:
    counting = ReadCountingStore(redis_client, Keys(key_prefix), clock_ms=lambda: next(_clock))
    yield counting
    await counting.close()


async def test_a_command_is_charged_from_the_events_in_hand(
    store: ReadCountingStore, redis_client: aioredis.Redis, key_prefix: str
) -> None:
    """After a clocked game's moves, every move is charged and the next seat has a deadline, and the keeper
    read nothing from the log to do it."""
    clocks = RedisClocks(redis_client, Keys(key_prefix))
    keeper = ClockKeeper(clocks, store, now_ms=lambda: next(_clock))
    games = Games(store, observers=[keeper], think_times=keeper, now_ms=lambda: next(_clock))
    control = TimeControl(move_ms=60_000, max_timeouts=1)
    summary = await games.create_game("oldmen", 3, {}, b"keeper-in-memory", time_control=control)
    tokens = dict([await games.claim_seat(summary.game_id, seat, f"p{seat}") for seat in range(3)])
    store.counting = True
    for move in range(5):
        view = await games.get_view(summary.game_id, None, None)
        seat = view.pending_seats[0]
        mine = await games.get_view(summary.game_id, seat, tokens[seat])
        reads_before = store.reads
        await games.commands.submit(
            summary.game_id, seat, tokens[seat], mine.legal_commands[0], expected_version=None, command_id=f"m{move}"
        )
        assert store.reads == reads_before, "the keeper read the log back to charge the command"
    clock = await clocks.load(summary.game_id)
    view = await games.get_view(summary.game_id, None, None)
    assert clock is not None and clock.charged == view.version
    assert await keeper.deadline_ms(summary.game_id, view.pending_seats[0]) is not None
