"""Clocks: a seat that never moves is timed out once per deadline, also with two servers on one Redis,
and is dropped (always auto-played) after too many timeouts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from parlour.v1 import game_pb2
from service.app.time_control import TimeControl
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings


@pytest.fixture
async def two_servers(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[tuple[App, App]]:
    """Two server processes' worth of app on the same Redis and key prefix, both enforcing deadlines."""
    apps = [
        build_app(server_settings(redis_target, key_prefix, tmp_path / str(i), clock_poll_seconds=0.01))
        for i in range(2)
    ]
    for app in apps:
        await app.start()
    yield apps[0], apps[1]
    for app in apps:
        await app.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def finished_view(app: App, game_id: str, seconds: float) -> game_pb2.GameView:
    """The spectator's view once the game is over (fails after ``seconds``)."""
    for _ in range(int(seconds * 20)):
        view = await app.games.get_view(game_id, None, None)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return view
        await asyncio.sleep(0.05)
    raise AssertionError("the game did not finish")


async def test_silent_seats_are_timed_out_once_per_deadline_then_dropped(two_servers: tuple[App, App]) -> None:
    """Nobody moves: each pending seat is timed out after its 200 ms, exactly once per deadline although two
    servers enforce deadlines; after two timeouts a seat is dropped and auto-played at once, so the game
    still ends; every timed-out move records the time charged."""
    one, two = two_servers
    assert one.clocks is not None
    summary = await one.games.create_game("oldmen", 3, {}, b"clock-seed-timeouts")
    for seat in range(3):
        await one.games.claim_seat(summary.game_id, seat, f"silent-{seat}")
    await one.clocks.start(summary.game_id, TimeControl(move_ms=200, max_timeouts=2), 3)
    await finished_view(two, summary.game_id, seconds=60)
    stored = await one.store.read(summary.game_id, 1, 100_000)
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    moves = [e for e in stored if e.seat is not None and e.command]
    assert moves and all(e.timed_out for e in moves)
    ids = [e.command_id for e in moves]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("timeout:") for i in ids)
    per_seat: dict[int, list[int]] = {}
    for event in moves:
        assert event.seat is not None
        per_seat.setdefault(event.seat, []).append(event.think_ms)
    for seat, charged in per_seat.items():
        assert all(ms >= 190 for ms in charged[:2]), (seat, charged[:3])
        assert all(ms < 150 for ms in charged[3:]), (seat, charged[3:8])  # dropped: played at once
    clock = await one.clocks._clocks.load(summary.game_id)
    assert clock is not None and clock.dropped == frozenset(range(3))


async def test_a_seat_that_moves_in_time_is_never_timed_out(two_servers: tuple[App, App]) -> None:
    """Moves made within the time are recorded with their think time and no timeout."""
    one, _ = two_servers
    assert one.clocks is not None
    summary = await one.games.create_game("oldmen", 3, {}, b"in-time-clock-seed")
    tokens = [(await one.games.claim_seat(summary.game_id, s, f"p{s}"))[1] for s in range(3)]
    await one.clocks.start(summary.game_id, TimeControl(move_ms=2000), 3)
    for _ in range(6):
        view = await one.games.get_view(summary.game_id, None, None)
        seat = view.pending_seats[0]
        own = await one.games.get_view(summary.game_id, seat, tokens[seat])
        await asyncio.sleep(0.05)
        await one.games.commands.submit(
            summary.game_id,
            seat,
            tokens[seat],
            own.legal_commands[0],
            expected_version=own.version,
            command_id=f"m{own.version}",
        )
    stored = await one.store.read(summary.game_id, 1, 1000)
    moves = [e for e in stored if e.command]
    assert len(moves) >= 6 and not any(e.timed_out for e in moves)
    assert all(40 <= e.think_ms < 2000 for e in moves)
