"""Loading a game costs one snapshot plus the events after it; snapshots never change what a game is."""

from __future__ import annotations

import itertools
import pickle
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from engines.playout import play
from engines.registry import get_game
from service.app.states import StateCache
from service.store.keys import Keys
from service.store.port import NewEvent, StoredEvent
from service.store.redis_store import RedisEventStore

_clock = itertools.count(1)


class CountingStore(RedisEventStore):
    """The Redis store, counting how many events reads return."""

    events_read = 0

    async def read(self, game_id: str, from_version: int, limit: int) -> list[StoredEvent]:
        batch = await super().read(game_id, from_version, limit)
        self.events_read += len(batch)
        return batch


@pytest.fixture
async def store(redis_client: aioredis.Redis, key_prefix: str) -> AsyncIterator[CountingStore]:
    counting = CountingStore(redis_client, Keys(key_prefix), clock_ms=lambda: next(_clock))
    yield counting
    await counting.close()


async def _stored_match(store: CountingStore) -> tuple[str, object]:
    game = get_game("oldmen")
    assert game is not None
    playout = play(game, game.spec.config(4, {"match_deals": "2"}), b"long")
    await store.create("long", {"game": "oldmen"}, [NewEvent(e.SerializeToString()) for e in playout.events])
    return "long", playout.state


async def test_a_fresh_cache_loads_from_the_snapshot_and_reads_only_later_events(store: CountingStore) -> None:
    """With a snapshot at version 200, loading reads only the events after 200 and gives the same state."""
    game = get_game("oldmen")
    assert game is not None
    game_id, final = await _stored_match(store)
    loaded = await StateCache(store).get(game_id, game)
    assert loaded.state == final
    snapshot_at = 200
    state_at = None
    for event in await store.read(game_id, 1, snapshot_at):
        state_at = game.evolve(state_at, game.event_type.FromString(event.data))
    tag = f"oldmen:{game.spec.rules_version}:pickle-1"
    await store.save_snapshot(game_id, snapshot_at, tag, pickle.dumps(state_at))
    store.events_read = 0
    fresh = await StateCache(store).get(game_id, game)
    assert fresh.state == final
    assert store.events_read == loaded.version - snapshot_at


async def test_a_snapshot_of_another_rules_version_is_ignored(store: CountingStore) -> None:
    """A snapshot tagged with other rules is not trusted: the whole log is folded instead."""
    game = get_game("oldmen")
    assert game is not None
    game_id, final = await _stored_match(store)
    await store.save_snapshot(game_id, 100, "oldmen:oldmen/0:pickle-1", b"not a state")
    store.events_read = 0
    loaded = await StateCache(store).get(game_id, game)
    assert loaded.state == final
    assert store.events_read == loaded.version


async def test_advancing_past_a_multiple_writes_a_snapshot(store: CountingStore) -> None:
    """The cache writes a snapshot each time a game's log passes a multiple of snapshot_every."""
    game = get_game("oldmen")
    assert game is not None
    game_id, _ = await _stored_match(store)
    cache = StateCache(store, snapshot_every=50)
    loaded = await cache.get(game_id, game)
    version = loaded.version
    loaded.version = 99
    await cache.advance(game_id, loaded, loaded.state, 101)
    snapshot = await store.load_snapshot(game_id)
    assert snapshot is not None and snapshot[0] == 101
    assert version > 101
