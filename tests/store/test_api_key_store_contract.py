"""The API-key store contract: every adapter of the ApiKeyStore port must pass these tests.

A key is kept by its hash under a unique name: created once per name (atomically, so of two admins making
the same name at once one is refused), found by its hash, listed by name, and forgotten when revoked.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from service.store.api_key_port import ApiKeyStore
from service.store.keys import Keys
from tests.conftest import RedisTarget, client_for
from tests.store.adapters import api_key_store


@pytest.fixture
def api_keys(redis_client: aioredis.Redis, key_prefix: str) -> ApiKeyStore:
    """Each adapter of the port in turn (see tests/store/adapters.py)."""
    return api_key_store(redis_client, key_prefix)


@pytest.fixture
async def other_process(redis_target: RedisTarget, key_prefix: str) -> AsyncIterator[ApiKeyStore]:
    """The same adapter over a connection of its own: what another server process sharing the store has."""
    client = client_for(redis_target.url)
    yield api_key_store(client, key_prefix)
    await client.aclose()


async def test_a_new_store_knows_no_key(api_keys: ApiKeyStore) -> None:
    """No names, no hash has a name, nothing to revoke."""
    assert await api_keys.names() == []
    assert await api_keys.name_of("h-unknown") is None
    assert await api_keys.revoke("nobody") is False


async def test_a_created_key_is_found_by_its_hash_and_listed_by_name(api_keys: ApiKeyStore) -> None:
    """Names are listed sorted, whatever the order they were made in."""
    assert await api_keys.create("carol", "h-carol") is True
    assert await api_keys.create("alice", "h-alice") is True
    assert await api_keys.create("bob", "h-bob") is True
    assert await api_keys.name_of("h-alice") == "alice"
    assert await api_keys.name_of("h-carol") == "carol"
    assert await api_keys.names() == ["alice", "bob", "carol"]


async def test_a_taken_name_is_refused_and_keeps_its_key(api_keys: ApiKeyStore) -> None:
    """A second key under a name stores nothing: the first key still works, the second does not."""
    assert await api_keys.create("alice", "h-first") is True
    assert await api_keys.create("alice", "h-second") is False
    assert await api_keys.name_of("h-first") == "alice"
    assert await api_keys.name_of("h-second") is None
    assert await api_keys.names() == ["alice"]


async def test_a_create_sent_again_says_it_stored_the_key(api_keys: ApiKeyStore) -> None:
    """A create run twice (the cluster client sends a command again when a reply is lost) is True both
    times, and the key is stored once; a create of the name with another key is still refused."""
    assert await api_keys.create("bob", "h-bob") is True
    assert await api_keys.create("bob", "h-bob") is True
    assert await api_keys.create("bob", "h-other") is False
    assert await api_keys.name_of("h-bob") == "bob" and await api_keys.name_of("h-other") is None
    assert await api_keys.names() == ["bob"]


async def test_of_simultaneous_creates_of_one_name_exactly_one_is_stored(api_keys: ApiKeyStore) -> None:
    """The name check and both writes are one step: one create wins, the others leave no trace."""
    hashes = [f"h-{i}" for i in range(10)]
    created = await asyncio.gather(*(api_keys.create("race", h) for h in hashes))
    assert created.count(True) == 1
    winner = hashes[created.index(True)]
    assert [await api_keys.name_of(h) for h in hashes] == ["race" if h == winner else None for h in hashes]


async def test_a_revoked_key_is_forgotten_and_its_name_free_again(api_keys: ApiKeyStore) -> None:
    """After revoke the key has no name and is not listed; revoking again is refused; the name takes a new
    key, and the old key stays unknown. Other keys are untouched."""
    await api_keys.create("alice", "h-old")
    await api_keys.create("bob", "h-bob")
    assert await api_keys.revoke("alice") is True
    assert await api_keys.name_of("h-old") is None
    assert await api_keys.names() == ["bob"]
    assert await api_keys.revoke("alice") is False
    assert await api_keys.create("alice", "h-new") is True
    assert await api_keys.name_of("h-new") == "alice"
    assert await api_keys.name_of("h-old") is None
    assert await api_keys.name_of("h-bob") == "bob"


async def test_another_process_sees_the_keys_made_and_revoked(
    api_keys: ApiKeyStore, other_process: ApiKeyStore
) -> None:
    """Keys live in the store, not in a process: one server makes and revokes, another serves them."""
    await api_keys.create("alice", "h-alice")
    assert await other_process.name_of("h-alice") == "alice"
    assert await other_process.names() == ["alice"]
    assert await other_process.revoke("alice") is True
    assert await api_keys.name_of("h-alice") is None


def test_both_hashes_of_api_keys_share_one_cluster_slot(key_prefix: str) -> None:
    """The scripts write both hashes at once, which a Redis Cluster allows only within one slot."""
    keys = Keys(key_prefix)
    assert key_slot(keys.api_keys_by_name().encode()) == key_slot(keys.api_keys_by_hash().encode())
