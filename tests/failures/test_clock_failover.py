"""The clocks keep running when a replica dies holding a claimed deadline: another replica claims it again
once its lease ends, plays that timed-out move once, and the timeouts after it go on, each applied once
(one command each, no version twice).

The first replica must die after claiming a due deadline and before applying it. So that nothing depends
on timing, the game's Redis master refuses writes (``min-replicas-to-write`` above its replica count) from
before the deadline is due until the first replica is dead: its claim succeeds (the deadline set lives on
another master), its move is refused, and it is killed holding the claim. Nothing it sent can land later
(a refused write is not queued). The cluster is this test's own."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from parlour.client import GameClient
from parlour.v1 import clock_pb2
from service.app.clocks import timeout_command_id
from service.store.clock_port import Deadline
from service.store.embedded import RedisProcess
from service.store.keys import Keys
from tests.cluster import Cluster, start_cluster
from tests.conftest import CLUSTER_SCHEME, RedisTarget, client_for
from tests.failures.replicas import serve

TIMEOUTS = 3  # after the claimed one
MOVE_MS = 2000  # the time between the deadline being set and due, in which writes are refused
WAIT_S = 60


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[Cluster]:
    cluster = start_cluster(tmp_path / "cluster", start_port=42000)
    yield cluster
    cluster.stop()


def _refuse_writes(node: RedisProcess, refuse: bool) -> None:
    """Make ``node`` refuse every write (it wants more replicas than it has), or accept them again."""
    client = redis.Redis(unix_socket_path=node.socket_path)
    try:
        client.config_set("min-replicas-to-write", 100 if refuse else 0)
    finally:
        client.close()


async def _until(check: Callable[[], Awaitable[object]], what: str) -> None:
    """Poll ``check`` until it returns something true; an error naming ``what`` after WAIT_S."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + WAIT_S
    while loop.time() < give_up:
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"not seen in {WAIT_S} s: {what}")


async def test_a_deadline_claimed_by_a_killed_replica_is_taken_over_once(
    own_cluster: Cluster, key_prefix: str, tmp_path: Path
) -> None:
    target = RedisTarget("cluster", CLUSTER_SCHEME + own_cluster.seeds)
    keys = Keys(key_prefix)
    deadlines_master = own_cluster.master_of(keys.deadlines())
    store: aioredis.Redis = client_for(target.url)
    try:
        async with serve(target, key_prefix, tmp_path / "a") as (first, first_target):
            async with GameClient(first_target) as creator:
                control = clock_pb2.TimeControl(move_ms=MOVE_MS, max_timeouts=50)
                for attempt in range(50):  # a game whose keys are on another master than the deadline set
                    seed = f"clock-failover-{attempt}".encode().ljust(16, b".")
                    summary = await creator.create_game("oldmen", 4, seed=seed, time_control=control)
                    game_master = own_cluster.master_of(keys.log(summary.game_id))
                    if game_master is not deadlines_master:
                        break
                else:
                    raise AssertionError("every game's keys were on the deadline set's master")
                game_id = summary.game_id
                for seat in range(4):
                    await creator.claim_seat(game_id, f"idle-{seat}", seat=seat)
                view = await creator.view(game_id)
                started, pending = view.version, len(view.pending_seats)

            async def scheduled() -> dict[bytes, float]:
                """The deadlines of the game's first turn (one per pending seat), by member, once all are set."""
                members = await store.zrange(keys.deadlines(), 0, -1, withscores=True)
                mine = {m: s for m, s in members if Deadline.parse(m.decode()).game_id == game_id}
                return mine if len(mine) == pending else {}

            await _until(scheduled, "the first deadlines are set")
            due = await scheduled()
            _refuse_writes(game_master, True)
            try:
                unclaimed = await scheduled()
                assert unclaimed == due, "a deadline was claimed before the game's writes were refused"

                async def claimed() -> dict[bytes, float]:
                    now = await scheduled()
                    return {m: s for m, s in now.items() if s != due.get(m, s)}  # pushed a lease into the future

                await _until(claimed, "the first replica claims a deadline")
                first.send_signal(signal.SIGKILL)
                await first.wait()
                killed_ms = time.time() * 1000
                taken = await claimed()  # every claim the dead replica holds
            finally:
                _refuse_writes(game_master, False)
            assert (await store.hget(keys.meta(game_id), "version")) == str(started).encode()  # nothing applied

        async with (
            serve(target, key_prefix, tmp_path / "b") as (_, second_target),
            GameClient(second_target) as survivor,
        ):
            timed_out: dict[str, list[int]] = {}
            events = []
            async with asyncio.timeout(WAIT_S):
                async for event in survivor.watch(game_id, from_version=started + 1):
                    assert event.timed_out, "nobody plays: every command is the server's, for a timeout"
                    timed_out.setdefault(event.command_id, []).append(event.version)
                    events.append(event)
                    if len(timed_out) > 1 + TIMEOUTS:
                        break
        versions = [event.version for event in events]
        assert versions == list(range(started + 1, versions[-1] + 1))  # no gap, nothing twice
        for command_versions in timed_out.values():  # each timeout is one command's events, together
            assert command_versions == list(range(command_versions[0], command_versions[-1] + 1))
        first_timeout = events[0]
        claimed_ids = {timeout_command_id(Deadline.parse(member.decode())) for member in taken}
        assert first_timeout.command_id in claimed_ids  # the claimed deadline itself, taken over
        recorded_ms = first_timeout.recorded_at.ToMilliseconds()
        assert recorded_ms >= killed_ms  # by the survivor, after the first replica died
        assert recorded_ms >= min(taken.values())  # once the dead replica's lease had ended
    finally:
        await store.aclose()
