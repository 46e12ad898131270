"""The tournament store contract: every adapter of the TournamentStore port must pass these tests.

A tournament's log behaves as a game's: optimistic appends (a wrong expected version is refused),
idempotent event ids, range reads, and live tails that get each new event as it is appended, also by
another process sharing the store, without polling the log.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
import redis.asyncio as aioredis

from service.store.port import CommandIdReusedError, StoredEvent, VersionConflictError, event_digest
from service.store.tournament_port import TournamentStore
from tests.conftest import RedisTarget, client_for
from tests.store.adapters import tournament_store


@pytest.fixture
async def tournaments(redis_client: aioredis.Redis, key_prefix: str) -> AsyncIterator[TournamentStore]:
    """Each adapter of the port in turn (see tests/store/adapters.py)."""
    adapter = tournament_store(redis_client, key_prefix)
    yield adapter
    await adapter.close()


@pytest.fixture
async def other_process(redis_target: RedisTarget, key_prefix: str) -> AsyncIterator[TournamentStore]:
    """The same adapter over a connection of its own: what another server process sharing the store has."""
    client = client_for(redis_target.url)
    adapter = tournament_store(client, key_prefix)
    yield adapter
    await adapter.close()
    await client.aclose()


def _pairs(events: list[StoredEvent]) -> list[tuple[int, bytes]]:
    return [(e.version, e.data) for e in events]


async def _take(stream: AsyncIterator[StoredEvent], count: int) -> list[StoredEvent]:
    """The first ``count`` events of a tail (the tail is closed afterwards)."""
    seen: list[StoredEvent] = []
    async for event in stream:
        seen.append(event)
        if len(seen) == count:
            break
    return seen


async def test_a_tournament_is_created_with_its_secret_first_event_and_index_entry(
    tournaments: TournamentStore,
) -> None:
    """Newest first in the index; the first event is version 1 with its time."""
    await tournaments.create("t1", b"secret-1", b"first-1", now_ms=10)
    await tournaments.create("t2", b"secret-2", b"first-2", now_ms=20)
    assert await tournaments.ids() == ["t2", "t1"]
    assert await tournaments.secret("t1") == b"secret-1"
    assert await tournaments.secret("nope") == b""
    [first] = await tournaments.read("t1")
    assert (first.version, first.recorded_at_ms, first.data) == (1, 10, b"first-1")
    assert await tournaments.read("nope") == []


async def test_an_id_is_created_once(tournaments: TournamentStore) -> None:
    """Creating a tournament whose log exists is a version conflict and changes nothing."""
    await tournaments.create("t1", b"secret-1", b"first-1", now_ms=10)
    with pytest.raises(VersionConflictError):
        await tournaments.create("t1", b"secret-2", b"first-2", now_ms=20)
    assert await tournaments.secret("t1") == b"secret-1"
    assert _pairs(await tournaments.read("t1")) == [(1, b"first-1")]


async def test_an_append_at_a_wrong_expected_version_is_refused(tournaments: TournamentStore) -> None:
    """An append at the log's version adds its events in order; one behind or ahead adds nothing."""
    await tournaments.create("t3", b"s", b"e1", now_ms=1)
    appended = await tournaments.append("t3", [b"e2", b"e3"], expected_version=1, now_ms=2)
    assert (appended.first, appended.last, appended.duplicate) == (2, 3, False)
    for wrong in (1, 4):
        with pytest.raises(VersionConflictError) as conflict:
            await tournaments.append("t3", [b"late"], expected_version=wrong, now_ms=3)
        assert conflict.value.current == 3
    assert _pairs(await tournaments.read("t3", 2)) == [(2, b"e2"), (3, b"e3")]


async def test_an_append_on_another_last_event_is_refused(tournaments: TournamentStore) -> None:
    """With the digest of the event it was decided on, an append is refused if the log holds another
    event at that version (Redis lost the decided-on event and another process appended since)."""
    await tournaments.create("t7", b"s", b"e1", now_ms=1)
    await tournaments.append("t7", [b"theirs"], expected_version=1, now_ms=2)
    with pytest.raises(VersionConflictError):
        await tournaments.append("t7", [b"mine"], expected_version=2, now_ms=3, expected_last=event_digest(b"lost"))
    appended = await tournaments.append(
        "t7", [b"mine"], expected_version=2, now_ms=3, expected_last=event_digest(b"theirs")
    )
    assert (appended.first, appended.last) == (3, 3)
    assert _pairs(await tournaments.read("t7")) == [(1, b"e1"), (2, b"theirs"), (3, b"mine")]


async def test_an_event_id_appends_its_events_once(tournaments: TournamentStore) -> None:
    """The same id with the same events is a duplicate (the first versions, nothing appended, even at a
    stale version); with other events it is refused."""
    await tournaments.create("t6", b"s", b"e1", now_ms=1)
    first = await tournaments.append("t6", [b"step"], expected_version=1, now_ms=2, event_id="round:2")
    again = await tournaments.append("t6", [b"step"], expected_version=1, now_ms=3, event_id="round:2")
    assert (again.first, again.last, again.duplicate) == (first.first, first.last, True) == (2, 2, True)
    with pytest.raises(CommandIdReusedError):
        await tournaments.append("t6", [b"other"], expected_version=2, now_ms=4, event_id="round:2")
    assert _pairs(await tournaments.read("t6")) == [(1, b"e1"), (2, b"step")]


async def test_reads_cover_long_logs(tournaments: TournamentStore) -> None:
    """A read returns every event from its version on, however many there are."""
    await tournaments.create("t7", b"s", b"e0", now_ms=1)
    version = 1
    for _ in range(5):
        version = (await tournaments.append("t7", [b"x"] * 300, expected_version=version, now_ms=2)).last
    assert [e.version for e in await tournaments.read("t7")] == list(range(1, 1502))
    assert [e.version for e in await tournaments.read("t7", 1499)] == [1499, 1500, 1501]


async def test_a_tail_from_a_version_gives_the_history_then_new_events(tournaments: TournamentStore) -> None:
    """From version N: the stored events from N on (none before), then each appended one, in order, once."""
    await tournaments.create("t4", b"s", b"e1", now_ms=1)
    await tournaments.append("t4", [b"e2", b"e3"], expected_version=1, now_ms=2)
    follower = asyncio.ensure_future(_take(tournaments.tail("t4", 2), 4))
    await asyncio.sleep(0.05)
    await tournaments.append("t4", [b"e4"], expected_version=3, now_ms=3)
    await tournaments.append("t4", [b"e5"], expected_version=4, now_ms=4)
    seen = await asyncio.wait_for(follower, timeout=10)
    assert _pairs(seen) == [(2, b"e2"), (3, b"e3"), (4, b"e4"), (5, b"e5")]


async def test_a_live_tail_gets_events_from_another_process_as_they_are_appended(
    tournaments: TournamentStore, other_process: TournamentStore
) -> None:
    """A tail waiting for new events gets each one appended by another process (each of several appends,
    one at a time). That it is woken rather than polling is the next test's: timings are not asserted, as a
    busy machine makes them meaningless."""
    await tournaments.create("t8", b"s", b"e1", now_ms=1)
    stream = tournaments.tail("t8", 1)
    assert [e.version for e in [await anext(stream)]] == [1]
    for version in range(1, 9):
        receiving = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.02 + 0.011 * version)  # the tail is waiting for a live event (at any phase)
        await other_process.append("t8", [b"e%d" % (version + 1)], expected_version=version, now_ms=2)
        event = await asyncio.wait_for(receiving, timeout=5)
        assert (event.version, event.data) == (version + 1, b"e%d" % (version + 1))
    await stream.aclose()  # type: ignore[attr-defined]  # an AsyncIterator typed stream is an async generator here


class RangeCounting:
    """A Redis client that counts the range reads (XRANGE, XREVRANGE) and the blocking reads (XREAD) sent
    through it; everything else passes through unchanged."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self.range_reads = 0
        self.blocking_reads = 0
        self._read_sent = asyncio.Event()

    async def blocking_reads_sent(self, count: int) -> None:
        """Until ``count`` more XREADs have been sent."""
        target = self.blocking_reads + count
        while self.blocking_reads < target:
            self._read_sent.clear()
            await self._read_sent.wait()

    async def xread(self, *args: Any, **kwargs: Any) -> Any:
        self.blocking_reads += 1
        self._read_sent.set()
        return await self._client.xread(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def xrange(self, *args: Any, **kwargs: Any) -> Any:
        self.range_reads += 1
        return await self._client.xrange(*args, **kwargs)

    async def xrevrange(self, *args: Any, **kwargs: Any) -> Any:
        self.range_reads += 1
        return await self._client.xrevrange(*args, **kwargs)


async def test_a_waiting_tail_does_not_read_the_log_again(redis_client: aioredis.Redis, key_prefix: str) -> None:
    """While a tail waits for new events it reads no range of the log (it is woken by the stream, not
    polling): across several rounds of the shared blocking read (XREAD) the store sends no XRANGE. Counted at
    the store's own client, so other users of the same Redis do not count."""
    counting = RangeCounting(redis_client)
    tournaments = tournament_store(cast(aioredis.Redis, counting), key_prefix)
    try:
        await tournaments.create("t9", b"s", b"e1", now_ms=1)
        stream = tournaments.tail("t9", 1)
        await anext(stream)
        assert counting.range_reads > 0  # the history came through the counted client
        waiting = asyncio.ensure_future(anext(stream))
        await asyncio.wait_for(counting.blocking_reads_sent(1), 5)  # joined the live read
        before = counting.range_reads
        await asyncio.wait_for(counting.blocking_reads_sent(3), 5)  # three more rounds of it, each blocking
        assert counting.range_reads == before
        assert not waiting.done()
        await tournaments.append("t9", [b"e2"], expected_version=1, now_ms=2)
        assert (await asyncio.wait_for(waiting, timeout=5)).version == 2
        await stream.aclose()  # type: ignore[attr-defined]  # an AsyncIterator typed stream is an async generator here
    finally:
        await tournaments.close()


async def test_a_tail_ends_after_the_final_event(tournaments: TournamentStore) -> None:
    """Tailing a log whose last event was appended as final returns the log and stops; a live tail stops
    right after that event."""
    await tournaments.create("t10", b"s", b"e1", now_ms=1)
    live = asyncio.ensure_future(_collect(tournaments.tail("t10", 1)))
    await asyncio.sleep(0.05)
    await tournaments.append("t10", [b"last"], expected_version=1, now_ms=2, final=True)
    assert _pairs(await asyncio.wait_for(live, timeout=5)) == [(1, b"e1"), (2, b"last")]
    assert [e.version for e in await _collect(tournaments.tail("t10", 2))] == [2]


async def test_the_scheduler_lease_has_one_owner(tournaments: TournamentStore) -> None:
    """The owner renews its lease; nobody else takes it until it is released or runs out."""
    assert await tournaments.lease("t5", "a", 10_000) is True
    assert await tournaments.lease("t5", "b", 10_000) is False
    assert await tournaments.lease("t5", "a", 10_000) is True
    await tournaments.release("t5", "b")
    assert await tournaments.lease("t5", "b", 10_000) is False
    await tournaments.release("t5", "a")
    assert await tournaments.lease("t5", "b", 50) is True
    for _ in range(100):
        if await tournaments.lease("t5", "c", 10_000):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("a lease that ran out was never free again")


async def _collect(stream: AsyncIterator[StoredEvent]) -> list[StoredEvent]:
    return [event async for event in stream]
