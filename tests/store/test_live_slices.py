"""The live fan-out of a game with many watchers: the shared reader hands new events out a slice of
watchers at a time and gives way between slices; every watcher still sees every version once, in order,
whenever it joined, and a watcher whose consumer takes nothing holds up neither the others nor the
appends."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from service.store.keys import Keys
from service.store.port import NewCommand, NewEvent, StoredEvent
from service.store.redis_store import RedisEventStore

_clock = itertools.count(1_000_000)
WATCHERS = 200  # more than are handed events at once: several slices
TOTAL = 60


class GiveWay:
    """Counts how often the fan-out gave way."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1


@pytest.fixture
def give_way() -> GiveWay:
    return GiveWay()


@pytest.fixture
async def store(redis_client: aioredis.Redis, key_prefix: str, give_way: GiveWay) -> AsyncIterator[RedisEventStore]:
    adapter = RedisEventStore(redis_client, Keys(key_prefix), clock_ms=lambda: next(_clock), live_gives_way=give_way)
    yield adapter
    await adapter.close()


async def test_many_watchers_in_slices_see_every_event_once_and_a_stuck_one_holds_nobody(
    store: RedisEventStore, give_way: GiveWay
) -> None:
    """200 watchers (half join a third of the way through) and one whose consumer takes its first event
    and then nothing: the appends go on at their own pace, every other watcher gets versions 1..n once and
    in order, and the fan-out gave way between slices."""
    await store.create("g1", {}, [NewEvent(b"0")])
    midway = asyncio.Event()

    async def writer() -> None:
        for version in range(1, TOTAL):
            if version == TOTAL // 3:
                midway.set()
            await store.append(
                "g1",
                NewCommand(
                    [NewEvent(b"x")],
                    expected_version=version,
                    command_id=f"c{version}",
                    digest="d",
                    seat=0,
                    final=version == TOTAL - 1,
                ),
            )
            await asyncio.sleep(0.005)

    async def rest(tail: AsyncIterator[StoredEvent], first: StoredEvent) -> list[int]:
        return [first.version] + [e.version async for e in tail]

    async def watch() -> asyncio.Task[list[int]]:
        """A watcher that has read its first event (the watchers open one by one: one Redis connection
        each while they read the history)."""
        tail = store.tail("g1", 1)
        return asyncio.create_task(rest(tail, await anext(tail)))

    stuck = store.tail("g1", 1)
    await anext(stuck)  # its consumer never asks for more
    early = [await watch() for _ in range(WATCHERS // 2)]
    writing = asyncio.create_task(writer())
    await asyncio.wait_for(midway.wait(), 20)
    late = [await watch() for _ in range(WATCHERS // 2)]
    await asyncio.wait_for(writing, 20)
    results = await asyncio.wait_for(asyncio.gather(*early, *late), 20)
    for versions in results:
        assert versions == list(range(1, TOTAL + 1))
    assert give_way.calls > 0
    await stuck.aclose()  # type: ignore[attr-defined]  # an async generator
