"""Think time is measured by the clocks, not by the store's append: from when the seat's clock started in a
clocked game (in this process or another), from the previous event in a game without a clock."""

from __future__ import annotations

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


class Clock:
    """A clock the test moves by hand (ms)."""

    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(redis_client: aioredis.Redis, key_prefix: str, clock: Clock) -> AsyncIterator[RedisEventStore]:
    events = RedisEventStore(redis_client, Keys(key_prefix), clock_ms=clock)
    yield events
    await events.close()


def _keeper(redis_client: aioredis.Redis, key_prefix: str, store: RedisEventStore, clock: Clock) -> ClockKeeper:
    return ClockKeeper(RedisClocks(redis_client, Keys(key_prefix)), store, now_ms=clock)


async def _move(games: Games, game_id: str, tokens: dict[int, str], command_id: str) -> StoredEvent:
    """Submit the first legal command of the first pending seat; its first stored event."""
    view = await games.get_view(game_id, None, None)
    seat = view.pending_seats[0]
    mine = await games.get_view(game_id, seat, tokens[seat])
    reply = await games.commands.submit(
        game_id, seat, tokens[seat], mine.legal_commands[0], expected_version=mine.version, command_id=command_id
    )
    first = reply.version - len(reply.events) + 1
    return (await games._store.read(game_id, first, 1))[0]


async def test_without_a_clock_think_time_runs_from_the_previous_event(store: RedisEventStore, clock: Clock) -> None:
    """Each move records the time since the event before it, also in a process that loads the game afresh."""
    games = Games(store, now_ms=clock)
    summary = await games.create_game("oldmen", 3, {}, b"think-time-no-clock")
    tokens = dict([await games.claim_seat(summary.game_id, seat, f"p{seat}") for seat in range(3)])
    clock.now += 600
    assert (await _move(games, summary.game_id, tokens, "a")).think_ms == 600
    clock.now += 250
    assert (await _move(games, summary.game_id, tokens, "b")).think_ms == 250
    clock.now += 40
    fresh = Games(store, now_ms=clock)  # another process: the state (and the previous event's time) loaded cold
    assert (await _move(fresh, summary.game_id, tokens, "c")).think_ms == 40


async def test_with_a_clock_think_time_runs_from_the_seats_clock_start(
    store: RedisEventStore, redis_client: aioredis.Redis, key_prefix: str, clock: Clock
) -> None:
    """A clocked move records the time since its seat's clock started, whether this process started that
    clock or another one did; the think time charged is the one recorded."""
    keeper = _keeper(redis_client, key_prefix, store, clock)
    games = Games(store, observers=[keeper], think_times=keeper, now_ms=clock)
    control = TimeControl(move_ms=60_000)
    summary = await games.create_game("oldmen", 3, {}, b"think-time-clocked", time_control=control)
    tokens = dict([await games.claim_seat(summary.game_id, seat, f"p{seat}") for seat in range(3)])
    started = clock.now  # the clock started with the last claim
    clock.now += 5_000  # the time between the clock's start and this process seeing the view is the seat's
    first = await _move(games, summary.game_id, tokens, "a")
    assert first.think_ms == clock.now - started
    clock.now += 700
    other_keeper = _keeper(redis_client, key_prefix, store, clock)
    other = Games(store, observers=[other_keeper], think_times=other_keeper, now_ms=clock)
    second = await _move(other, summary.game_id, tokens, "b")  # its clock was started by the first process
    assert second.think_ms == 700
    clocks = RedisClocks(redis_client, Keys(key_prefix))
    assert first.seat is not None  # its move was charged: its turn ended, and any new one started now
    assert await clocks.turn_started(summary.game_id, first.seat) in (None, clock.now)
    record = await clocks.load(summary.game_id)
    assert record is not None and record.charged >= second.version
