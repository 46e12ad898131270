"""The clock store contract: every adapter of the ClockStore port must pass these tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from service.store.clock_port import ClockStore, Deadline, Move
from service.store.port import EventStore, NewCommand, NewEvent
from tests.store.adapters import clock_store, event_store

CONTROL = {"move_ms": 1000, "bank_ms": 5000, "increment_ms": 200, "max_timeouts": 2}


@pytest.fixture
async def stores(redis_client: aioredis.Redis, key_prefix: str) -> AsyncIterator[tuple[EventStore, ClockStore]]:
    """A game store and the clock store beside it (a clock follows its game's version)."""
    games = event_store(redis_client, key_prefix)
    yield games, clock_store(redis_client, key_prefix)
    await games.close()


async def _game(games: EventStore, game_id: str, versions: int = 2) -> None:
    await games.create(game_id, {"game": "oldmen"}, [NewEvent(b"%d" % i) for i in range(versions)])


async def test_a_game_gets_its_clock_once(stores: tuple[EventStore, ClockStore]) -> None:
    """The first create gives every seat a full bank; a second create changes nothing."""
    games, clocks = stores
    await _game(games, "c1")
    assert await clocks.load("c1") is None
    assert await clocks.create("c1", CONTROL, 3, 2) is True
    assert await clocks.create("c1", {**CONTROL, "move_ms": 1}, 3, 2) is False
    clock = await clocks.load("c1")
    assert clock is not None
    assert (clock.move_ms, clock.bank_ms, clock.increment_ms, clock.max_timeouts) == (1000, 5000, 200, 2)
    assert clock.banks == {0: 5000, 1: 5000, 2: 5000} and clock.charged == 2 and not clock.dropped


async def test_a_turn_starts_once_and_only_at_the_games_version(stores: tuple[EventStore, ClockStore]) -> None:
    """Starting a running turn again keeps its first start; at a version the game has left, nothing starts."""
    games, clocks = stores
    await _game(games, "c2")
    await clocks.create("c2", CONTROL, 3, 2)
    assert await clocks.start_turn("c2", 1, 2, now_ms=100) == 100
    assert await clocks.start_turn("c2", 1, 2, now_ms=900) == 100
    assert await clocks.start_turn("c2", 0, 1, now_ms=900) is None
    clock = await clocks.load("c2")
    assert clock is not None and clock.since == {1: 100}


async def test_charging_a_move_ends_its_seats_turn(stores: tuple[EventStore, ClockStore]) -> None:
    """A running turn's start is readable until the seat's move is charged; then the seat's next turn starts
    afresh. A move reported again (already charged) does not end the new turn."""
    games, clocks = stores
    await _game(games, "c7")
    await clocks.create("c7", CONTROL, 3, 2)
    assert await clocks.turn_started("c7", 0) is None
    assert await clocks.start_turn("c7", 0, 2, now_ms=100) == 100
    await clocks.start_turn("c7", 1, 2, now_ms=100)
    assert await clocks.turn_started("c7", 0) == 100
    await clocks.charge("c7", 3, [Move(3, 0, 50, False)])
    assert await clocks.turn_started("c7", 0) is None
    assert await clocks.turn_started("c7", 1) == 100  # another seat's turn goes on
    assert await clocks.start_turn("c7", 0, 2, now_ms=700) == 700
    await clocks.charge("c7", 3, [Move(3, 0, 50, False)])
    assert await clocks.turn_started("c7", 0) == 700
    assert await clocks.turn_started("nothing-here", 0) is None


async def test_moves_are_charged_once_in_order(stores: tuple[EventStore, ClockStore]) -> None:
    """Time over move_ms comes off the bank, the increment is added, timeouts count and drop a seat at
    max_timeouts; moves at or before the charged version are skipped however often they are reported."""
    games, clocks = stores
    await _game(games, "c3")
    await clocks.create("c3", CONTROL, 3, 2)
    moves = [Move(3, 0, 1500, False), Move(4, 1, 7000, True), Move(5, 1, 7000, True)]
    timeouts = await clocks.charge("c3", 5, moves)
    assert timeouts == {4: False, 5: True}
    assert await clocks.charge("c3", 5, moves) == {}
    clock = await clocks.load("c3")
    assert clock is not None and clock.charged == 5
    assert clock.banks[0] == 5000 - 500 + 200
    assert clock.banks[1] == 0 + 200 and clock.timeouts == {1: 2} and clock.dropped == frozenset({1})


async def test_games_behind_are_found_until_their_deadlines_are_set(stores: tuple[EventStore, ClockStore]) -> None:
    """A running clocked game at a version past its scheduled mark is behind; the mark never moves back;
    a finished game is no longer looked at."""
    games, clocks = stores
    await _game(games, "c4")
    await clocks.create("c4", CONTROL, 3, 1)
    assert ("c4", 2) in await clocks.behind()
    await clocks.mark_scheduled("c4", 2)
    await clocks.mark_scheduled("c4", 1)
    assert all(game_id != "c4" for game_id, _ in await clocks.behind())
    await games.append("c4", NewCommand([NewEvent(b"x")], expected_version=2, command_id="m", digest="d", seat=0))
    assert ("c4", 3) in await clocks.behind()
    await clocks.finish("c4")
    assert all(game_id != "c4" for game_id, _ in await clocks.behind())


async def test_a_due_deadline_is_claimed_by_one_caller_until_its_lease_ends(
    stores: tuple[EventStore, ClockStore],
) -> None:
    """Only due deadlines are claimed; two claimers never get the same one; a claimed deadline is due again
    when its lease ends; done forgets it."""
    _, clocks = stores
    early, late = Deadline("c5", 0, 3), Deadline("c5", 1, 3)
    await clocks.set_deadline(early, 1_000)
    await clocks.set_deadline(late, 5_000)
    assert await clocks.next_due() == 1_000 and await clocks.pending() == 2
    first, second = await asyncio.gather(clocks.claim_due(2_000, 10, 500), clocks.claim_due(2_000, 10, 500))
    assert sorted([*first, *second], key=str) == [early]
    assert await clocks.claim_due(2_400, 10, 500) == []
    assert await clocks.claim_due(2_600, 10, 500) == [early]
    await clocks.done(early)
    assert await clocks.pending() == 1 and await clocks.next_due() == 5_000
    await clocks.done(late)
    assert await clocks.next_due() is None
