"""API keys kept under the names of earlier versions (``<prefix>:apikeys:by_name`` and ``by_hash``, two
Cluster slots, so only ever on a single Redis) keep working after the upgrade: they are moved under the
one-slot names when first needed, also when a server of the old version writes one during a rolling
upgrade, and a name taken since keeps its new key."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from service.store.api_key_port import ApiKeyStore
from tests.conftest import RedisTarget, target_of, targets
from tests.store.adapters import api_key_store


@pytest.fixture(params=targets())
def redis_target(request: pytest.FixtureRequest) -> RedisTarget:
    """The single-Redis targets only: a Cluster never held the old names."""
    return target_of(request)


@pytest.fixture
def api_keys(redis_client: aioredis.Redis, key_prefix: str) -> ApiKeyStore:
    return api_key_store(redis_client, key_prefix)


async def _store_the_old_way(client: aioredis.Redis, prefix: str, name: str, key_hash: str) -> None:
    """What an earlier version wrote for a new key."""
    await client.hset(f"{prefix}:apikeys:by_name", name, key_hash)
    await client.hset(f"{prefix}:apikeys:by_hash", key_hash, name)


async def _old_names_left(client: aioredis.Redis, prefix: str) -> int:
    return int(await client.exists(f"{prefix}:apikeys:by_name", f"{prefix}:apikeys:by_hash"))


async def test_keys_under_the_old_names_authenticate_and_are_moved(
    api_keys: ApiKeyStore, redis_client: aioredis.Redis, key_prefix: str
) -> None:
    """The first lookup finds the old key and moves every old key; the old names are gone; the moved keys
    are listed, keep their names taken, and are revoked as any other key."""
    await _store_the_old_way(redis_client, key_prefix, "alice", "h-alice")
    await _store_the_old_way(redis_client, key_prefix, "bob", "h-bob")
    assert await api_keys.name_of("h-alice") == "alice"
    assert await _old_names_left(redis_client, key_prefix) == 0
    assert await api_keys.name_of("h-bob") == "bob"
    assert await api_keys.names() == ["alice", "bob"]
    assert await api_keys.create("alice", "h-other") is False
    assert await api_keys.revoke("bob") is True
    assert await api_keys.name_of("h-bob") is None
    assert await api_keys.names() == ["alice"]


_FIRST_CALLS: dict[str, Callable[[ApiKeyStore], Awaitable[Any]]] = {
    "name_of": lambda store: store.name_of("h-old"),
    "names": lambda store: store.names(),
    "create": lambda store: store.create("old", "h-taken"),
    "revoke": lambda store: store.revoke("old"),
}
_FIRST_REPLIES = {"name_of": "old", "names": ["old"], "create": False, "revoke": True}


@pytest.mark.parametrize("call", list(_FIRST_CALLS))
async def test_any_first_call_sees_the_old_keys(
    call: str, api_keys: ApiKeyStore, redis_client: aioredis.Redis, key_prefix: str
) -> None:
    """Whatever the upgraded server is asked first: a lookup finds the old key, a listing names it, a
    create of its name is refused, a revoke forgets it."""
    await _store_the_old_way(redis_client, key_prefix, "old", "h-old")
    assert await _FIRST_CALLS[call](api_keys) == _FIRST_REPLIES[call]
    assert await _old_names_left(redis_client, key_prefix) == 0


async def test_a_key_an_old_server_makes_during_a_rolling_upgrade_authenticates(
    api_keys: ApiKeyStore, redis_client: aioredis.Redis, key_prefix: str
) -> None:
    """A key written under the old names after the upgraded server has moved the others is found too."""
    await _store_the_old_way(redis_client, key_prefix, "early", "h-early")
    assert await api_keys.create("new", "h-new") is True
    await _store_the_old_way(redis_client, key_prefix, "late", "h-late")
    assert await api_keys.name_of("h-late") == "late"
    assert await api_keys.names() == ["early", "late", "new"]


async def test_an_old_key_whose_name_was_taken_since_is_dropped(
    api_keys: ApiKeyStore, redis_client: aioredis.Redis, key_prefix: str
) -> None:
    """The key made under the new names keeps the name; the old one with that name authenticates no more
    (as if its create had been refused)."""
    assert await api_keys.create("alice", "h-new") is True
    await _store_the_old_way(redis_client, key_prefix, "alice", "h-old")
    assert await api_keys.name_of("h-old") is None
    assert await api_keys.name_of("h-new") == "alice"
    assert await _old_names_left(redis_client, key_prefix) == 0
