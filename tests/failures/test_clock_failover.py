"""The clocks keep running when the replica that created a clocked game is killed: another replica claims
the deadlines from Redis and plays each timed-out move once (one command each, no version twice)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from parlour.client import GameClient
from parlour.v1 import clock_pb2
from tests.conftest import RedisTarget, delete_prefix
from tests.failures.replicas import serve

TIMEOUTS = 3


async def test_timeouts_go_on_once_each_after_the_replica_is_killed(
    redis_cluster: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    try:
        async with (
            serve(redis_cluster, key_prefix, tmp_path / "a") as (first, first_target),
            serve(redis_cluster, key_prefix, tmp_path / "b") as (_, second_target),
            GameClient(first_target) as creator,
            GameClient(second_target) as survivor,
        ):
            control = clock_pb2.TimeControl(move_ms=1000, max_timeouts=50)
            summary = await creator.create_game("oldmen", 4, seed=b"clock-failover-seed", time_control=control)
            for seat in range(4):
                await creator.claim_seat(summary.game_id, f"idle-{seat}", seat=seat)
            first.send_signal(signal.SIGKILL)
            await first.wait()
            started = (await survivor.view(summary.game_id)).version
            timed_out: dict[str, list[int]] = {}
            versions: list[int] = []
            async with asyncio.timeout(60):
                async for event in survivor.watch(summary.game_id, from_version=started + 1):
                    assert event.timed_out, "nobody plays: every command is the server's, for a timeout"
                    timed_out.setdefault(event.command_id, []).append(event.version)
                    versions.append(event.version)
                    if len(timed_out) > TIMEOUTS:
                        break
            assert versions == list(range(started + 1, versions[-1] + 1))  # no gap, nothing twice
            for command_versions in timed_out.values():  # each timeout is one command's events, together
                assert command_versions == list(range(command_versions[0], command_versions[-1] + 1))
    finally:
        await delete_prefix(redis_cluster.url, key_prefix)
