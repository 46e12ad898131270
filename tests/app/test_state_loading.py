"""Loading a game costs one snapshot plus the events after it; snapshots never change what a game is."""

from __future__ import annotations

import asyncio
import itertools
import pickle
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from structlog.testing import capture_logs

from engines.contract import AnyGame
from engines.playout import play
from engines.registry import get_game
from engines.snapshot import StateCodec
from service.app.states import Reached, StateCache, snapshot_tag
from service.store.keys import Keys
from service.store.port import NewCommand, NewEvent, StoredEvent, event_digest
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
    """With a snapshot at version 200, loading reads only the events after 200 (and the event at 200, in the
    same read, for its digest and time) and gives the same state."""
    game = get_game("oldmen")
    assert game is not None
    game_id, final = await _stored_match(store)
    loaded = await StateCache(store).get(game_id, game)
    assert loaded.state == final
    snapshot_at = 200
    state_at = None
    for event in await store.read(game_id, 1, snapshot_at):
        state_at = game.evolve(state_at, game.event_type.FromString(event.data))
    codec = StateCodec.of_game(game)
    await store.save_snapshot(game_id, snapshot_at, snapshot_tag(game, codec), codec.encode(state_at))
    store.events_read = 0
    fresh = await StateCache(store).get(game_id, game)
    assert fresh.state == final
    assert store.events_read == loaded.version - snapshot_at + 1
    assert fresh.last_digest == loaded.last_digest and fresh.last_ms == loaded.last_ms


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


def _oldmen() -> AnyGame:
    game = get_game("oldmen")
    assert game is not None
    return game


async def _load_counting_logs(store: CountingStore, game_id: str, times: int) -> tuple[list[object], list[dict]]:
    """Load the game ``times`` times through one cache, forgetting it before each load; the states loaded
    and the "snapshot not used" log entries."""
    cache = StateCache(store)
    states = []
    with capture_logs() as logs:
        for _ in range(times):
            cache.forget(game_id)
            states.append((await cache.get(game_id, _oldmen())).state)
    return states, [entry for entry in logs if entry["event"].startswith("snapshot not used")]


@pytest.mark.parametrize(
    "tag_of, blob",
    [
        pytest.param(snapshot_tag, b"{not json", id="unreadable-bytes"),
        pytest.param(snapshot_tag, b'{"seats": 4}', id="wrong-fields"),
        pytest.param(
            lambda game, codec: f"oldmen:{game.spec.rules_version}:pickle-1",
            pickle.dumps({"a state of an older server": True}),
            id="pickle-of-an-older-server",
        ),
        pytest.param(
            lambda game, codec: f"oldmen:{game.spec.rules_version}:state-json-1:000000000000",
            b"{}",
            id="another-state-shape",
        ),
    ],
)
async def test_a_game_whose_snapshot_cannot_be_read_loads_from_its_log(
    store: CountingStore, tag_of: object, blob: bytes
) -> None:
    """An unreadable snapshot (garbage, wrong shape, another server's format) never stops a game from
    loading: the log is folded from the start, and the process says so once per game, not on every load."""
    game = _oldmen()
    game_id, final = await _stored_match(store)
    codec = StateCodec.of_game(game)
    await store.save_snapshot(game_id, 200, tag_of(game, codec), blob)  # type: ignore[operator]  # a parametrized tag function
    store.events_read = 0
    states, reports = await _load_counting_logs(store, game_id, times=3)
    assert states == [final, final, final]
    assert store.events_read == 3 * len(await store.read(game_id, 1, 10_000))
    assert len(reports) == 1 and reports[0]["game_id"] == game_id and reports[0]["log_level"] == "warning"


def test_a_snapshot_names_fields_not_classes() -> None:
    """The encoding holds field names and values only: a state class can be renamed or moved and every
    snapshot stays readable (the pickle of older servers named the class path)."""
    game = _oldmen()
    state = play(game, game.spec.config(4), b"shape" * 4).state
    blob = StateCodec.of_game(game).encode(state)
    assert b"engines" not in blob and b"State" not in blob and b"SeatState" not in blob
    renamed = type("Renamed", (game.state_type,), {})
    assert StateCodec(renamed, given={"rules": game.rules}).fingerprint == StateCodec.of_game(game).fingerprint


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


class GatedStore(CountingStore):
    """The Redis store where, once ``hold(skip)`` is called, the read after the next ``skip`` ones waits
    (after its reply arrived) until ``release()``: the test runs something else while it is in flight."""

    def hold(self, skip: int = 0) -> None:
        self._skip = skip
        self._held: asyncio.Event | None = asyncio.Event()
        self.waiting = asyncio.Event()

    def release(self) -> None:
        assert self._release is not None
        self._release.set()

    async def read(self, game_id: str, from_version: int, limit: int) -> list[StoredEvent]:
        held = getattr(self, "_held", None)
        if held is not None and self._skip > 0:
            self._skip, held = self._skip - 1, None
        elif held is not None:
            self._held = None
        batch = await super().read(game_id, from_version, limit)
        if held is not None:
            self._release = held
            self.waiting.set()
            await held.wait()
        return batch


@pytest.fixture
async def gated(redis_client: aioredis.Redis, key_prefix: str) -> AsyncIterator[GatedStore]:
    store = GatedStore(redis_client, Keys(key_prefix), clock_ms=lambda: next(_clock))
    yield store
    await store.close()


_GATED_SEED = b"gated" * 4


async def _partly_cached(store: GatedStore, game_id: str, cached: int, seed: bytes) -> tuple[StateCache, int]:
    """A game of seed ``seed`` whose first ``cached`` events are in a new cache; the rest are then
    appended to the log. Returns the cache and the log's length."""
    game = _oldmen()
    payloads = [e.SerializeToString() for e in play(game, game.spec.config(3), seed).events]
    await store.create(game_id, {"game": "oldmen"}, [NewEvent(p) for p in payloads[:cached]])
    cache = StateCache(store)
    loaded = await cache.get(game_id, game)
    assert loaded.version == cached and loaded.last_digest
    rest = [NewEvent(p) for p in payloads[cached:]]
    await store.append(game_id, NewCommand(rest, expected_version=cached, command_id="rest", digest="rest", seat=None))
    return cache, len(payloads)


async def test_two_requests_catching_up_one_game_at_once_do_not_reload_it(gated: GatedStore) -> None:
    """Two requests bring the same cached game up to date at once (a bot's view and a command, say): the
    slower one finds the state already advanced by the other. That is not a lost log: no reload (which
    used to leave an empty state in the cache for other requests to read meanwhile), and the state is the
    fold of the whole log."""
    game = _oldmen()
    cache, length = await _partly_cached(gated, "gated", 20, _GATED_SEED)
    loaded = await cache.get("gated", game)
    with capture_logs() as logs:
        gated.hold()
        slow = asyncio.create_task(cache.catch_up("gated", loaded))
        await gated.waiting.wait()  # the slow one has read the log from event 20 on
        await cache.catch_up("gated", loaded)  # the other request folds everything meanwhile
        assert loaded.version == length
        gated.release()
        await slow
    assert [entry for entry in logs if "no longer in the log" in entry["event"]] == []
    assert loaded.version == length
    assert loaded.state == play(game, game.spec.config(3), _GATED_SEED).state


async def test_a_reload_never_shows_other_requests_an_empty_state(gated: GatedStore) -> None:
    """When the log no longer holds what a cached state was folded from (Redis lost writes and others
    wrote since), the state is reloaded; requests reading the cache meanwhile see the old state whole,
    never a half-loaded one, and afterwards the fold of the log as it now is."""
    game = _oldmen()
    cache, _ = await _partly_cached(gated, "lost", 20, _GATED_SEED)
    loaded = await cache.get("lost", game)
    before = loaded.state
    await gated.delete("lost")  # the log is replaced by another history of the same game
    other = b"other" * 4
    payloads = [e.SerializeToString() for e in play(game, game.spec.config(3), other).events]
    await gated.create("lost", {"game": "oldmen"}, [NewEvent(p) for p in payloads])
    with capture_logs() as logs:
        gated.hold(skip=1)  # the check of event 20 reads, then the reload's first read of the new log waits
        reload = asyncio.create_task(cache.catch_up("lost", loaded))
        await gated.waiting.wait()
        assert loaded.state is before and loaded.version == 20  # the old state, whole
        gated.release()
        await reload
    assert [entry["event"] for entry in logs] == ["cached state no longer in the log; reloading"]
    assert loaded.version == len(payloads)
    assert loaded.state == play(game, game.spec.config(3), other).state


async def test_a_game_created_here_is_cached_as_a_fresh_load_would_find_it(store: CountingStore) -> None:
    """``StateCache.created`` folds the setup events in hand: the same state, version, last digest and time
    a cache loading the game from Redis gets, with nothing read."""
    game = get_game("oldmen")
    assert game is not None
    setup = [e.SerializeToString() for e in game.start(game.spec.config(4), b"created".ljust(16, b"."))]
    await store.create("made", {"game": "oldmen", "created_ms": "1234"}, [NewEvent(data) for data in setup])
    made = StateCache(store).created("made", game, setup, 1234)
    assert store.events_read == 0
    loaded = await StateCache(store).get("made", game)
    assert (made.state, made.version, made.last_digest, made.last_ms) == (
        loaded.state,
        loaded.version,
        loaded.last_digest,
        loaded.last_ms,
    )
    assert made.version == len(setup) and made.last_digest


async def test_a_unit_of_work_keeps_where_its_command_took_the_game_only_when_it_ends_well(
    store: CountingStore,
) -> None:
    """A command's work on a game starts from the latest state; what it reached is cached when the block ends
    without an error, and forgotten when it raises (its events were not stored)."""
    game = get_game("oldmen")
    assert game is not None
    game_id, _ = await _stored_match(store)
    cache = StateCache(store, snapshot_every=100_000)  # no snapshot of the made-up states
    async with cache.work(game_id, game) as work:
        start = work.loaded.version
        work.reached = Reached("the state after a command", start + 2, b"its last event", 1234)
    loaded = await cache.get(game_id, game)
    assert (loaded.state, loaded.version, loaded.last_ms) == ("the state after a command", start + 2, 1234)
    assert loaded.last_digest == event_digest(b"its last event")
    with pytest.raises(RuntimeError):
        async with cache.work(game_id, game) as work:
            work.reached = Reached("never stored", start + 5, b"", 5678)
            raise RuntimeError("the append failed")
    assert (await cache.get(game_id, game)).version == start + 2


async def test_units_of_work_on_one_game_run_one_at_a_time(store: CountingStore) -> None:
    """Two commands of one game in this process never decide at once: the second's work begins after the
    first's has ended, on the state the first reached."""
    game = get_game("oldmen")
    assert game is not None
    game_id, _ = await _stored_match(store)
    cache = StateCache(store, snapshot_every=100_000)  # no snapshot of the made-up states
    seen: list[int] = []
    first_inside = asyncio.Event()

    async def first() -> None:
        async with cache.work(game_id, game) as work:
            first_inside.set()
            await asyncio.sleep(0.05)
            work.reached = Reached(work.loaded.state, work.loaded.version + 1, b"", 0)

    async def second() -> None:
        await first_inside.wait()
        async with cache.work(game_id, game) as work:
            seen.append(work.loaded.version)

    start = (await cache.get(game_id, game)).version
    await asyncio.gather(first(), second())
    assert seen == [start + 1]


async def test_a_cache_holds_at_most_its_capacity_and_loads_the_least_recently_used_again(
    store: CountingStore,
) -> None:
    """A process keeps the latest state of at most ``capacity`` games (``--cache-games``): the game used least
    recently is dropped first, and loaded from the store again (the same state) when it is next asked for."""
    game = get_game("oldmen")
    assert game is not None
    cache = StateCache(store, capacity=2)
    states = {}
    for name in ("first", "second", "third"):
        setup = [e.SerializeToString() for e in game.start(game.spec.config(4), name.encode().ljust(16, b"."))]
        await store.create(name, {"game": "oldmen"}, [NewEvent(data) for data in setup])
        states[name] = cache.created(name, game, setup, 1234).state
    assert len(cache) == 2
    assert (await cache.get("third", game)).state is states["third"]
    assert store.events_read == 0
    assert (await cache.get("first", game)).state == states["first"]
    assert store.events_read > 0  # loaded again from the store
