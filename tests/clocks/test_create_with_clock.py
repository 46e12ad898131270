"""A game created with a time control through the plain game API: its clock starts once every seat is
claimed, and silent seats are then timed out; the summary shows the time control; bad values are refused
with a sentence naming the field."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from parlour.client import GameClient, ParlourError
from parlour.v1 import clock_pb2, game_pb2
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings


@pytest.fixture
async def fast_clocks(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server that looks at deadlines every 10 ms."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path, clock_poll_seconds=0.01))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def test_the_clock_starts_when_the_last_seat_is_claimed(fast_clocks: App) -> None:
    target = f"127.0.0.1:{fast_clocks.grpc_port}"
    control = clock_pb2.TimeControl(move_ms=100, max_timeouts=1)
    async with GameClient(target) as client:
        created = await client.create_game("oldmen", 3, time_control=control)
        assert created.time_control == control
        assert (await client.game(created.game_id)).time_control == control
        for seat in (0, 1):
            await client.claim_seat(created.game_id, f"slow-{seat}", seat=seat)
        # Nobody is timed out while a seat is free: once the server has looked at the game again (what each
        # claim makes it do), the game has no clock, so no seat has a deadline and no timeout can come.
        assert fast_clocks.clocks is not None
        await fast_clocks.clocks.start_when_ready(created.game_id)
        assert not await fast_clocks.clocks.has_clock(created.game_id)
        assert (await client.game(created.game_id)).version == created.version
        await client.claim_seat(created.game_id, "slow-2", seat=2)
        for _ in range(600):
            summary = await client.game(created.game_id)
            if summary.status == game_pb2.GAME_STATUS_FINISHED:
                break
            await asyncio.sleep(0.05)
        assert summary.status == game_pb2.GAME_STATUS_FINISHED
        events = [e async for e in client.events(created.game_id)]
    moves = [e for e in events if e.HasField("seat") and e.command_id]
    assert moves and all(e.timed_out for e in moves)


async def test_a_game_without_time_control_has_none(fast_clocks: App) -> None:
    async with GameClient(f"127.0.0.1:{fast_clocks.grpc_port}") as client:
        summary = await client.create_game("oldmen", 3)
    assert not summary.HasField("time_control")


@pytest.mark.parametrize(
    ("control", "named"),
    [
        (clock_pb2.TimeControl(move_ms=0), "move_ms must be 1 to 3600000, not 0"),
        (clock_pb2.TimeControl(move_ms=100, bank_ms=-1), "bank_ms must be 0 to 86400000, not -1"),
    ],
)
async def test_a_bad_time_control_is_refused(fast_clocks: App, control: clock_pb2.TimeControl, named: str) -> None:
    async with GameClient(f"127.0.0.1:{fast_clocks.grpc_port}") as client:
        with pytest.raises(ParlourError) as caught:
            await client.create_game("oldmen", 3, time_control=control)
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT and named in str(caught.value)
        assert not (await client.list_games()).games, "nothing was created"
