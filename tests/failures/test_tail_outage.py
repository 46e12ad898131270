"""Live tails across a Redis outage, at the store: once the shared read gives up on an unreachable Redis
(after ``watch_outage_s``) and has ended the watchers' streams, a watcher that joins the game again gets
its live events, even while a failed watcher of that game has not asked for more yet; and a watcher whose
join failed because Redis was away leaves nothing behind that would keep the next one from getting live
events. The Redis is a server process of the test's own, stopped and started again on the same files."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from service.store.connection import unavailable
from service.store.embedded import RedisProcess
from service.store.failures import StoreUnavailableError
from service.store.keys import Keys
from service.store.port import NewCommand, NewEvent
from service.store.redis_store import RedisEventStore

_clock = itertools.count(1_000_000)


@pytest.fixture
async def store(redis_process: RedisProcess, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    """A store on the test's own Redis whose live tails give up on it after 0.3 s."""
    client = aioredis.Redis.from_url(redis_process.url)
    adapter = RedisEventStore(client, Keys(key_prefix), clock_ms=lambda: next(_clock), watch_outage_s=0.3)
    yield adapter
    await adapter.close()
    await client.aclose()


async def _append(store: RedisEventStore, game_id: str, version: int) -> None:
    await store.append(
        game_id, NewCommand([NewEvent(b"x")], expected_version=version, command_id=f"c{version}", digest="d", seat=0)
    )


async def _gets_the_next_event_live(store: RedisEventStore, game_id: str) -> None:
    """A new watcher from version 1 takes the history (version 1: it has joined the live tail by then),
    and the event appended after that reaches it (live: it was not there when its history was read)."""
    tail = store.tail(game_id, 1)
    try:
        assert (await asyncio.wait_for(anext(tail), 30)).version == 1
        await _append(store, game_id, 1)
        assert (await asyncio.wait_for(anext(tail), 30)).version == 2
    finally:
        await tail.aclose()  # type: ignore[attr-defined]  # an async generator


async def test_a_game_watched_again_after_the_streams_ended_is_read_live(
    store: RedisEventStore, redis_process: RedisProcess
) -> None:
    await store.create("g1", {}, [NewEvent(b"0")])
    lingering = store.tail("g1", 1)
    assert (await anext(lingering)).version == 1  # and then its consumer asks for nothing more
    ended = store.tail("g1", 1)
    assert (await anext(ended)).version == 1  # live from here
    try:
        redis_process.stop()
        with pytest.raises(StoreUnavailableError):
            await asyncio.wait_for(anext(ended), 30)  # the shared read gave up
        redis_process.start()
        await _gets_the_next_event_live(store, "g1")
    finally:
        await lingering.aclose()  # type: ignore[attr-defined]  # an async generator


async def test_a_watcher_whose_join_failed_leaves_nothing_behind(
    store: RedisEventStore, redis_process: RedisProcess
) -> None:
    await store.create("g2", {}, [NewEvent(b"0")])
    redis_process.stop()
    refused = store.tail("g2", 1)
    with pytest.raises(Exception) as away:
        await asyncio.wait_for(anext(refused), 30)
    assert unavailable(away.value), repr(away.value)
    redis_process.start()
    await _gets_the_next_event_live(store, "g2")
