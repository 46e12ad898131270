"""Group commit: appends ready while a round trip to their Redis node is in flight go out together in the next
one (a pipeline per node), each still its own script with its own reply. Round trips are counted from the
server's own Redis metrics (every round trip its connections make is timed once), never by timing.

The store runs on the server's own client for each target (embedded, ``REDIS_URL`` when set, the cluster);
replica acknowledgements and a Redis that stops mid-batch on Redis processes of the test's own."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import redis
from prometheus_client import REGISTRY

from service.event_loop import BUSY_WINDOW_S
from service.store.acks import ScriptRunner
from service.store.batching import GroupCommit
from service.store.connection import RedisConnection, open_redis
from service.store.failures import StoreUnavailableError, is_unavailable
from service.store.keys import Keys
from service.store.port import (
    AppendResult,
    CommandIdReusedError,
    LogDivergedError,
    NewCommand,
    NewEvent,
    VersionConflictError,
)
from service.store.redis_store import RedisEventStore
from tests.conftest import RedisTarget, delete_prefix
from tests.replicated import master_and_replica, wait_for_replica

#: The labels the wire metrics give a round trip of appends: alone, batched, with WAIT (alone or batched).
APPEND_TRIPS = ("EVALSHA", "PIPELINE EVALSHA", "PIPELINE EVALSHA+WAIT")

_clock = itertools.count(1_000_000)


def _trips(*labels: str) -> float:
    """Round trips timed so far under ``labels`` (every append's round trip by default)."""
    return sum(
        REGISTRY.get_sample_value("parlour_redis_command_seconds_count", {"command": label}) or 0.0
        for label in labels or APPEND_TRIPS
    )


def _batches() -> tuple[float, float]:
    """Batches of appends sent so far, and the appends in them."""
    count = REGISTRY.get_sample_value("parlour_redis_append_batch_size_count") or 0.0
    return count, REGISTRY.get_sample_value("parlour_redis_append_batch_size_sum") or 0.0


class Counted:
    """The append round trips (those under ``labels``, when given) and batches between the start of a block
    and now."""

    def __init__(self, *labels: str) -> None:
        self._labels = labels

    def __enter__(self) -> Counted:
        self._trips, self._batches = _trips(*self._labels), _batches()
        return self

    def __exit__(self, *_: object) -> None:
        return None

    @property
    def trips(self) -> float:
        """Round trips of appends since the block began."""
        return _trips(*self._labels) - self._trips

    @property
    def batches(self) -> tuple[float, float]:
        """Batches since the block began, and the appends they carried."""
        count, total = _batches()
        return count - self._batches[0], total - self._batches[1]


class _CountingRunner:
    """Stands in for a store's script runner and counts what it is asked: runs sent alone, and batches
    (with their sizes). Counted on the store itself, so appends of other stores in this process (other
    tests' servers) never count."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.alone = 0
        self.batches: list[int] = []

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        self.alone += 1
        return await self._inner(keys, args)

    async def batch(self, node: Any, calls: Sequence[Any]) -> list[Any]:
        self.batches.append(len(calls))
        result: list[Any] = await self._inner.batch(node, calls)
        return result

    async def node_of(self, key: str) -> Any:
        return await self._inner.node_of(key)

    @property
    def trips(self) -> int:
        """Round trips asked for: each run alone, each batch."""
        return self.alone + len(self.batches)


class StoreTrips:
    """The round trips of ``store``'s appends within the block (see :class:`_CountingRunner`)."""

    def __init__(self, store: RedisEventStore) -> None:
        self._commit = store._append  # the store's group commit
        assert isinstance(self._commit, GroupCommit)
        self._runner = _CountingRunner(self._commit._runner)

    def __enter__(self) -> _CountingRunner:
        self._commit._runner = self._runner  # type: ignore[assignment]  # a counting stand-in
        return self._runner

    def __exit__(self, *_: object) -> None:
        self._commit._runner = self._runner._inner


def _open(target: RedisTarget, directory: Path) -> RedisConnection:
    """The server's own client for ``target`` (its connections time every round trip)."""
    if target.cluster_seeds:
        return open_redis(None, directory, target.cluster_seeds)
    return open_redis(target.url, directory)


@pytest.fixture
async def connection(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[RedisConnection]:
    """The server's own client for the target, ready (a cluster's slots learnt); the test's keys deleted
    afterwards."""
    opened = _open(redis_target, tmp_path)
    await opened.client.ping()
    yield opened
    await opened.close()
    await delete_prefix(redis_target.url, key_prefix)


@pytest.fixture
async def store(connection: RedisConnection, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    """The event store on that client, batching appends (its default)."""
    adapter = RedisEventStore(connection.client, Keys(key_prefix), clock_ms=lambda: next(_clock))
    yield adapter
    await adapter.close()


def _masters(connection: RedisConnection) -> int:
    """How many nodes appends can go to: the masters of a cluster, else 1."""
    if not connection.cluster:
        return 1
    slots = connection.client.nodes_manager.slots_cache  # type: ignore[attr-defined]  # RedisCluster's own
    return len({nodes[0].name for nodes in slots.values()})


async def _append(
    store: RedisEventStore,
    game: str,
    version: int,
    payload: bytes,
    *,
    command_id: str = "",
    digest: str = "d",
    expected_last: str = "",
) -> AppendResult:
    """One command of one event (a fresh command id unless given)."""
    return await store.append(
        game,
        NewCommand(
            [NewEvent(payload)],
            expected_version=version,
            command_id=command_id or uuid.uuid4().hex,
            digest=digest,
            seat=0,
            expected_last=expected_last,
        ),
    )


async def _outcomes(calls: Sequence[Awaitable[Any]]) -> list[Any]:
    """Each call's result or error, started in this order at once."""
    return list(await asyncio.gather(*calls, return_exceptions=True))


async def test_an_append_with_nothing_in_flight_goes_at_once_in_a_round_trip_of_its_own(
    store: RedisEventStore,
) -> None:
    """One caller at a time: each append is a plain script call of its own (not a pipeline), sent at once."""
    await store.create("g", {"game": "oldmen"}, [NewEvent(b"setup")])
    with StoreTrips(store) as counted:
        for version in range(1, 6):
            result = await _append(store, "g", version, b"move %d" % version)
            assert (result.first, result.last) == (version + 1, version + 1)
    assert (counted.alone, counted.batches) == (5, [])  # each a plain script call, none in a pipeline


async def test_concurrent_appends_to_many_games_share_round_trips(
    store: RedisEventStore, connection: RedisConnection
) -> None:
    """40 appends ready at once go out in a pipeline per node (held together while the loop is busy
    starting them); every caller gets its own game's result."""
    games = [f"many-{i}" for i in range(40)]
    for game in games:
        await store.create(game, {"game": "oldmen"}, [NewEvent(b"setup " + game.encode())])
    with StoreTrips(store) as counted, Counted() as metric:
        results = await _outcomes([_append(store, game, 1, game.encode()) for game in games])
    assert all(isinstance(r, AppendResult) and (r.first, r.last) == (2, 2) for r in results), results
    assert counted.trips <= 2 * _masters(connection) < len(games)
    assert counted.alone + sum(counted.batches) == len(games)
    assert metric.batches[1] >= len(games)  # parlour_redis_append_batch_size counts every append sent
    for game in games:
        assert [e.data for e in await store.read(game, 2, 10)] == [game.encode()]


def _holding(store: RedisEventStore, hold_s: float, may_join: Callable[[], bool] | None = None) -> None:
    """Make ``store`` hold its appends for at most ``hold_s`` while the loop is busy (and, given ``may_join``,
    only when it says others may join or the loop is busy enough)."""
    assert isinstance(store._append, GroupCommit)
    store._append = GroupCommit(store._append._runner, hold_s=hold_s, may_join=may_join)


def _keep_busy(callbacks: int, each_s: float, at: dict[int, Callable[[], object]]) -> asyncio.Future[float]:
    """Keep the loop busy (never idle) with a chain of ``callbacks`` ready callbacks taking ``each_s`` each, the
    n-th also calling ``at[n]``; the future is the time the chain ended."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[float] = loop.create_future()

    def step(n: int) -> None:
        time.sleep(each_s)  # work that holds the loop, as a request's Python work does
        if n in at:
            at[n]()
        if n + 1 < callbacks:
            loop.call_soon(step, n + 1)
        else:
            ended.set_result(time.perf_counter())

    loop.call_soon(step, 0)
    return ended


_BUSY_STEP_S = 0.0005


async def _five_games(store: RedisEventStore) -> list[str]:
    """Five new games, each at version 1."""
    games = [f"busy-{i}" for i in range(5)]
    for game in games:
        await store.create(game, {"game": "oldmen"}, [NewEvent(b"setup")])
    return games


async def _appends_while_busy(
    store: RedisEventStore, games: list[str], *, busy_first: int
) -> tuple[list[AppendResult], float]:
    """The loop kept busy in steps of :data:`_BUSY_STEP_S`: after ``busy_first`` steps, an append to one of
    ``games`` every 10 steps. Their results, and when the busy chain ended."""
    appends: list[asyncio.Task[AppendResult]] = []

    def append(game: str) -> Callable[[], object]:
        return lambda: appends.append(asyncio.create_task(_append(store, game, 1, game.encode())))

    at = {busy_first + 10 * i: append(game) for i, game in enumerate(games)}
    ended = await _keep_busy(busy_first + 50, _BUSY_STEP_S, at)
    return list(await asyncio.gather(*appends)), ended


async def test_appends_made_one_by_one_while_the_loop_is_busy_go_together_once_it_is_idle(
    store: RedisEventStore, connection: RedisConnection
) -> None:
    """A server busy with other requests makes its appends a moment apart, not at once: they are held while
    the loop has other callbacks ready, and go in one round trip when it has none (with nothing to hold
    them, each went alone, its reply back before the next was made). On a cluster, one round trip per
    master."""
    games = await _five_games(store)
    _holding(store, hold_s=60.0)
    with StoreTrips(store) as counted:
        results, ended = await _appends_while_busy(store, games, busy_first=0)
        answered = time.perf_counter()
    assert [(r.first, r.last) for r in results] == [(2, 2)] * len(results)
    assert counted.trips <= _masters(connection) < len(results)  # one per node
    assert counted.alone + sum(counted.batches) == len(results)
    assert answered - ended < 5.0  # sent when the loop went idle, not when the hold ran out


@pytest.mark.parametrize(("others", "sent_at_once"), [(False, True), (True, False)])
async def test_an_append_no_other_is_likely_to_join_is_sent_in_the_turn_it_is_made(
    store: RedisEventStore, others: bool, sent_at_once: bool
) -> None:
    """One command at a time (no other under way, the loop mostly idle) adds no wait to its append: it goes
    to Redis before its caller first yields. With other commands under way it is held for the loop's next
    idle moment, for theirs to join it."""
    await store.create("g", {"game": "oldmen"}, [NewEvent(b"setup")])
    _holding(store, hold_s=60.0, may_join=lambda: others)
    await asyncio.sleep(2 * BUSY_WINDOW_S)  # the loop mostly idle lately
    with StoreTrips(store) as counted:
        append = asyncio.create_task(_append(store, "g", 1, b"move"))
        await asyncio.sleep(0)  # the append's task has run up to its first wait, and no further
        sent = counted.alone + len(counted.batches)
        result = await append
    assert sent == (1 if sent_at_once else 0)
    assert (result.first, counted.alone) == (2, 1)


async def test_a_busy_loop_holds_appends_for_others_even_when_no_other_command_is_under_way(
    store: RedisEventStore, connection: RedisConnection
) -> None:
    """Requests the loop has not taken up yet are not under way in the application: a loop busy most of its
    time lately holds an append for them all the same."""
    games = await _five_games(store)
    _holding(store, hold_s=60.0, may_join=lambda: False)
    with StoreTrips(store) as counted:
        # busy long enough before the first append for the busy share to pass the threshold
        results, _ = await _appends_while_busy(store, games, busy_first=round(4 * BUSY_WINDOW_S / _BUSY_STEP_S))
    assert [(r.first, r.last) for r in results] == [(2, 2)] * len(results)
    assert counted.trips <= _masters(connection) < len(results)


async def test_a_held_append_goes_when_its_hold_runs_out_however_busy_the_loop_stays(
    store: RedisEventStore,
) -> None:
    """A loop that never goes idle does not keep an append from Redis longer than the hold."""
    await store.create("g", {"game": "oldmen"}, [NewEvent(b"setup")])
    _holding(store, hold_s=0.01)
    answered: list[float] = []

    def append() -> None:
        task = asyncio.create_task(_append(store, "g", 1, b"move"))
        task.add_done_callback(lambda _: answered.append(time.perf_counter()))

    ended = await _keep_busy(300, 0.001, {0: append})
    assert answered, "the append was not answered"
    assert answered[0] < ended  # answered while the loop was still busy


async def test_in_one_batch_each_append_gets_its_own_reply_and_a_refused_one_fails_alone(
    store: RedisEventStore,
) -> None:
    """Appends to one game made together go out in one round trip, in order: a stale expected version, a
    retried command, a reused command id and a forked log refuse only their own command."""
    await store.create("g", {"game": "oldmen"}, [NewEvent(b"setup")])
    with StoreTrips(store) as counted:
        outcomes = await _outcomes(
            [
                _append(store, "g", 1, b"lead", command_id="lead"),  # held: the others join it
                _append(store, "g", 2, b"a", command_id="a"),
                _append(store, "g", 2, b"b", command_id="b"),  # stale: "a" went first
                _append(store, "g", 3, b"c", command_id="c"),
                _append(store, "g", 9, b"a", command_id="a"),  # a retry of "a"
                _append(store, "g", 9, b"x", command_id="a", digest="other"),  # "a" for another command
                _append(store, "g", 4, b"f", command_id="f", expected_last=hashlib.sha1(b"lost").hexdigest()),
                _append(store, "g", 4, b"g", command_id="g", expected_last=hashlib.sha1(b"c").hexdigest()),
            ]
        )
    assert (counted.alone, counted.batches) == (0, [8])
    lead, a, b, c, retry, reused, forked, last = outcomes
    assert (lead.first, a.first, c.first, last.first) == (2, 3, 4, 5)
    assert not any(r.duplicate for r in (lead, a, c, last))
    assert isinstance(b, VersionConflictError) and b.current == 3
    assert retry == AppendResult(3, 3, duplicate=True)
    assert isinstance(reused, CommandIdReusedError)
    assert isinstance(forked, LogDivergedError) and forked.current == 4
    stored = await store.read("g", 1, 10)
    assert [(e.version, e.data, e.command_id) for e in stored[1:]] == [
        (2, b"lead", "lead"),
        (3, b"a", "a"),
        (4, b"c", "c"),
        (5, b"g", "g"),
    ]


async def test_a_caller_cancelled_while_queued_leaves_the_batch_and_the_others_are_stored(
    store: RedisEventStore,
) -> None:
    """A cancelled caller's queued append is not sent; the appends queued with it go out and are stored."""
    await store.create("g", {"game": "oldmen"}, [NewEvent(b"setup")])
    lead = asyncio.create_task(_append(store, "g", 1, b"lead", command_id="lead"))
    first = asyncio.create_task(_append(store, "g", 2, b"first", command_id="first"))
    dropped = asyncio.create_task(_append(store, "g", 3, b"dropped", command_id="dropped"))
    after = asyncio.create_task(_append(store, "g", 3, b"after", command_id="after"))
    await asyncio.sleep(0)  # each has started: their appends are held together, none sent yet
    dropped.cancel()
    results = await asyncio.gather(lead, first, after)
    assert [r.first for r in results] == [2, 3, 4]
    with pytest.raises(asyncio.CancelledError):
        await dropped
    assert [e.command_id for e in await store.read("g", 2, 10)] == ["lead", "first", "after"]
    assert await store.find_command("g", "dropped") is None


async def test_a_script_redis_lost_is_loaded_and_the_runs_it_refused_are_sent_again(
    connection: RedisConnection, key_prefix: str
) -> None:
    """After SCRIPT FLUSH (a restarted or failed-over Redis), a batch is refused, the script loaded, and the
    batch sent again: every run happens once."""
    client = connection.client
    script = client.register_script("return redis.call('INCR', KEYS[1])")
    runner = ScriptRunner(client, script)
    key = f"{key_prefix}:{{flushed}}"
    await client.script_flush()
    with Counted("PIPELINE EVALSHA") as counted:
        node = await runner.node_of(key)
        assert await runner.batch(node, [([key], [])] * 3) == [1, 2, 3]
        assert counted.trips == 2  # refused, then sent again
    assert await client.get(key) == b"3"


async def test_with_replica_acks_a_batch_is_acknowledged_only_once_the_replica_holds_it(
    key_prefix: str, tmp_path: Path
) -> None:
    """``--replica-acks 1``: a batch goes with one WAIT after it; every caller returns only once the replica
    holds its command. With the replica away, every command of the batch fails as not replicated (they are
    stored), and their retries with the same command ids, once it is back, are answered as duplicates."""
    with master_and_replica(tmp_path) as (master, replica):
        opened = open_redis(master.url, tmp_path / "client")
        store = RedisEventStore(
            opened.client, Keys(key_prefix), clock_ms=lambda: next(_clock), replica_acks=1, replica_ack_timeout_ms=500
        )
        on_replica = redis.Redis(unix_socket_path=replica.socket_path)
        keys = Keys(key_prefix)
        try:
            wait_for_replica(master, f"{key_prefix}:synced")
            games = [f"acked-{i}" for i in range(12)]
            for game in games:
                await store.create(game, {"game": "oldmen"}, [NewEvent(b"setup")])

            async def acknowledged(game: str) -> None:
                await _append(store, game, 1, b"move", command_id=f"{game}-1")
                assert on_replica.hexists(keys.commands(game), f"{game}-1"), "acknowledged before the replica had it"

            with StoreTrips(store) as counted:
                await asyncio.gather(*(acknowledged(game) for game in games))
            assert (counted.alone, counted.batches) == (0, [len(games)])  # held together, with one WAIT

            replica.stop()
            refused = await _outcomes([_append(store, game, 2, b"next", command_id=f"{game}-2") for game in games])
            assert all(isinstance(e, StoreUnavailableError) and "same command id" in str(e) for e in refused)
            replica.start()
            wait_for_replica(master, f"{key_prefix}:synced")
            retried = await _outcomes([_append(store, game, 2, b"next", command_id=f"{game}-2") for game in games])
            assert all(r == AppendResult(3, 3, duplicate=True) for r in retried), retried
        finally:
            on_replica.close()
            await store.close()
            await opened.close()


async def test_a_redis_that_stops_mid_batch_fails_that_batch_as_unavailable_and_later_appends_work(
    key_prefix: str, tmp_path: Path
) -> None:
    """A batch is in flight (its WAIT waits: the replica is away) when Redis stops: every command of the batch
    fails as the store being away, not as a refusal; once Redis and its replica are back, the same store
    appends again, and the retries with the same command ids store nothing twice."""
    with master_and_replica(tmp_path) as (master, replica):
        opened = open_redis(master.url, tmp_path / "client")
        store = RedisEventStore(
            opened.client, Keys(key_prefix), clock_ms=lambda: next(_clock), replica_acks=1, replica_ack_timeout_ms=2000
        )
        watcher = redis.Redis(unix_socket_path=master.socket_path)
        try:
            replica.stop()
            games = [f"stopped-{i}" for i in range(6)]
            lead = asyncio.create_task(_append(store, "lead", 0, b"lead", command_id="lead"))
            await _blocked_in_wait(watcher)  # the lead's round trip is in flight: the others queue behind it
            queued = [asyncio.create_task(_append(store, game, 0, b"first", command_id=game)) for game in games]
            with pytest.raises(StoreUnavailableError, match="same command id"):
                await lead  # no replica: WAIT gave up; the queued batch went out then
            await _blocked_in_wait(watcher)
            master.stop()
            for outcome in await asyncio.gather(*queued, return_exceptions=True):
                assert isinstance(outcome, StoreUnavailableError) and is_unavailable(outcome), outcome
                assert "replicas" not in str(outcome)  # the connection failed, not the acknowledgement
            master.start()
            replica.start()
            wait_for_replica(master, f"{key_prefix}:synced")
            retried = await _outcomes([_append(store, game, 0, b"first", command_id=game) for game in games])
            assert all(r == AppendResult(1, 1, duplicate=True) for r in retried), retried  # stored before the stop
            later = await _outcomes([_append(store, game, 1, b"second") for game in games])
            assert all(isinstance(r, AppendResult) and (r.first, r.duplicate) == (2, False) for r in later), later
        finally:
            watcher.close()
            await store.close()
            await opened.close()


async def _blocked_in_wait(watcher: redis.Redis) -> None:
    """Wait until a client of the Redis that ``watcher`` talks to is blocked in WAIT (a batch in flight)."""
    for _ in range(1000):
        if any(c.get("cmd") == "wait" and "b" in c.get("flags", "") for c in watcher.client_list()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no batch was blocked in WAIT")


async def test_on_a_cluster_each_master_gets_its_batch_with_one_wait(
    redis_cluster: RedisTarget, tmp_path: Path
) -> None:
    """``--replica-acks 1`` on a cluster: appends to games on every master, ready at once, go in a pipeline
    per master with one WAIT; every one is acknowledged."""
    prefix = f"parlour-test-{uuid.uuid4().hex[:12]}"
    opened = _open(redis_cluster, tmp_path)
    await opened.client.ping()
    store = RedisEventStore(opened.client, Keys(prefix), clock_ms=lambda: next(_clock), replica_acks=1)
    try:
        games = [f"acked-{i}" for i in range(30)]
        for game in games:  # one at a time (and the script known to every master)
            await _append(store, game, 0, b"first")
        with Counted("PIPELINE EVALSHA+WAIT") as counted:
            results = await _outcomes([_append(store, game, 1, b"second") for game in games])
            assert all(isinstance(r, AppendResult) and r.first == 2 for r in results), results
            assert counted.trips <= 2 * _masters(opened) < len(games)
    finally:
        await store.close()
        await opened.close()
        await delete_prefix(redis_cluster.url, prefix)


async def test_on_a_cluster_runs_refused_by_a_node_that_does_not_hold_their_slot_fail_alone(
    redis_cluster: RedisTarget, tmp_path: Path
) -> None:
    """A batch sent to one master with runs on another master's slots (as after a failover, before the
    client has learnt it): those runs fail as the store being away (they did not run; a retry goes to the
    right master), the others run."""
    opened = _open(redis_cluster, tmp_path)
    client = opened.client
    await client.ping()
    runner = ScriptRunner(client, client.register_script("return redis.call('INCR', KEYS[1])"))
    keys = [f"parlour-test-moved:{{{uuid.uuid4().hex[:12]}}}" for _ in range(12)]
    try:
        node = await runner.node_of(keys[0])
        assert node is not None
        here = [(await runner.node_of(key)) is node for key in keys]
        assert not all(here), "some keys are on other masters"
        replies = await runner.batch(node, [([key], []) for key in keys])
        for key, mine, reply in zip(keys, here, replies, strict=True):
            if mine:
                assert reply == 1
                assert await client.get(key) == b"1"
            else:
                assert isinstance(reply, StoreUnavailableError)
                assert await client.get(key) is None
    finally:
        for key in keys:
            await client.delete(key)
        await opened.close()
