"""The tournament store contract: every adapter of the TournamentStore port must pass these tests."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from service.store.port import VersionConflictError
from service.store.tournament_port import TournamentStore
from tests.store.adapters import tournament_store


@pytest.fixture
def tournaments(redis_client: aioredis.Redis, key_prefix: str) -> TournamentStore:
    return tournament_store(redis_client, key_prefix)


async def test_a_tournament_is_created_with_its_secret_first_event_and_index_entry(
    tournaments: TournamentStore,
) -> None:
    """Newest first in the index; the first event is version 1 with its time."""
    await tournaments.create("t1", b"secret-1", b"first-1", now_ms=10)
    await tournaments.create("t2", b"secret-2", b"first-2", now_ms=20)
    assert await tournaments.ids() == ["t2", "t1"]
    assert await tournaments.secret("t1") == b"secret-1"
    assert await tournaments.read("t1") == [(1, 10, b"first-1")]


async def test_appends_are_optimistic(tournaments: TournamentStore) -> None:
    """An append at the log's version adds its events in order; one at another version adds nothing."""
    await tournaments.create("t3", b"s", b"e1", now_ms=1)
    assert await tournaments.append("t3", [b"e2", b"e3"], expected_version=1, now_ms=2) == 3
    with pytest.raises(VersionConflictError) as conflict:
        await tournaments.append("t3", [b"late"], expected_version=1, now_ms=3)
    assert conflict.value.current == 3
    assert [data for _, _, data in await tournaments.read("t3", 2)] == [b"e2", b"e3"]


async def test_a_tail_gives_the_history_then_new_events(tournaments: TournamentStore) -> None:
    """From any version: the events already stored, then each appended one, in order, once."""
    await tournaments.create("t4", b"s", b"e1", now_ms=1)
    await tournaments.append("t4", [b"e2"], expected_version=1, now_ms=2)
    seen: list[tuple[int, bytes]] = []

    async def follow() -> None:
        async for version, _, data in tournaments.tail("t4", 2):
            seen.append((version, data))
            if version == 4:
                return

    follower = asyncio.ensure_future(follow())
    await tournaments.append("t4", [b"e3", b"e4"], expected_version=2, now_ms=3)
    await asyncio.wait_for(follower, timeout=10)
    assert seen == [(2, b"e2"), (3, b"e3"), (4, b"e4")]


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
