"""Clock work lost when a process stops right after storing a command (before it sets the next deadlines)
is redone by the sweep of any running process, and a move is never charged twice."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from parlour.v1 import game_pb2
from service.app.games import Games
from service.app.time_control import TimeControl
from service.bootstrap import App, build_app
from service.store.clocks import ClockRecord, RedisClocks
from service.store.keys import Keys
from tests.conftest import RedisTarget, delete_prefix, server_settings


@pytest.fixture
async def sweeping(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server that sweeps for clocked games left behind every 100 ms."""
    settings = server_settings(redis_target, key_prefix, tmp_path, clock_poll_seconds=0.01, clock_sweep_seconds=0.1)
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def _finished(app: App, game_id: str, seconds: float) -> None:
    for _ in range(int(seconds * 20)):
        if (await app.games.get_game(game_id)).status == game_pb2.GAME_STATUS_FINISHED:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the game did not go on to its end")


async def _charged_to_the_end(clocks: RedisClocks, game_id: str, last: int) -> ClockRecord:
    """The clock once the last move is charged (the observer of the last command may still be at work
    when the game is seen finished)."""
    for _ in range(100):
        clock = await clocks.load(game_id)
        if clock is not None and clock.charged == last:
            return clock
        await asyncio.sleep(0.05)
    raise AssertionError("the last move was never charged")


async def test_a_move_stored_by_a_process_that_stopped_before_its_clock_work_is_repaired(
    sweeping: App, key_prefix: str
) -> None:
    games = sweeping.games
    summary = await games.create_game(
        "oldmen", 3, {}, b"lost-clock-recovery", time_control=TimeControl(3000, max_timeouts=1)
    )
    game_id = summary.game_id
    tokens = dict([await games.claim_seat(game_id, seat, f"silent-{seat}") for seat in range(3)])
    # Another process stores a move and stops before its clock observer runs: a Games with no observers.
    stopped = Games(sweeping.store)
    seat = (await games.get_view(game_id, None, None)).pending_seats[0]
    view = await stopped.get_view(game_id, seat, tokens[seat])
    await stopped.commands.submit(
        game_id, seat, tokens[seat], view.legal_commands[0], expected_version=view.version, command_id="lost"
    )
    # Nobody moves again: the game only ends if the next seat got a deadline after all.
    await _finished(sweeping, game_id, seconds=60)
    stored = await sweeping.store.read(game_id, view.version + 1, 100_000)
    assert stored[0].command_id == "lost" and not stored[0].timed_out
    timed_out = Counter(e.seat for e in stored if e.timed_out and e.command)
    assert timed_out, "the seats after the lost clock work were timed out"
    clocks = RedisClocks(sweeping.redis.client, Keys(key_prefix))
    before = await _charged_to_the_end(clocks, game_id, stored[-1].version)
    assert before.timeouts == dict(timed_out)
    with capture_logs() as logged:
        for _ in range(2):  # the last version reported again: nothing is charged (or logged) twice
            await games.tell_observers(game_id)
    assert await clocks.load(game_id) == before
    assert not [entry for entry in logged if entry["event"] == "seat timed out"]
