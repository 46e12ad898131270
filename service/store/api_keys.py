"""API keys on Redis: two hashes under the key prefix, name -> key hash and key hash -> name (only the
hashes of keys are kept). Both share one hash tag (see :meth:`~service.store.keys.Keys.api_keys_by_name`),
so the scripts that write both at once also run on a Redis Cluster.

Earlier versions kept the hashes under names of two slots (:meth:`~service.store.keys.Keys.old_api_keys`),
which worked on a single Redis only. There, their entries are moved under the new names in one script
before each create, revoke and listing, and when a key's hash is not found, so the keys of an upgraded
deployment keep working, also those a server of the old version makes during a rolling upgrade. On a
Cluster nothing is moved: the old names could never be written there.
"""

from __future__ import annotations

from typing import cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.store.keys import Keys

__all__ = ["RedisApiKeys"]

# KEYS: by name, by hash. ARGV: name, key hash. 1 if created, 0 if the name is taken by another key. The
# same key again is 1: the script run a second time (a client's retry after a reply it lost) says what the
# first run did.
_CREATE = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return 1 end
  return 0
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return 1
"""

# KEYS: by name, by hash. ARGV: name. 1 if revoked, 0 if there was no such key.
_REVOKE = """
local hash = redis.call('HGET', KEYS[1], ARGV[1])
if not hash then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], hash)
return 1
"""

# KEYS: old by name, old by hash, by name, by hash. Moves each old key whose name is free under the new
# names (one whose name was taken since is dropped, as a create of it would have been refused), then
# deletes the old hashes. Returns how many keys moved.
_MOVE_OLD = """
local old = redis.call('HGETALL', KEYS[1])
local moved = 0
for i = 1, #old, 2 do
  if redis.call('HSETNX', KEYS[3], old[i], old[i + 1]) == 1 then
    redis.call('HSET', KEYS[4], old[i + 1], old[i])
    moved = moved + 1
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return moved
"""


class RedisApiKeys:
    """The API-key store (:class:`~service.store.api_key_port.ApiKeyStore`) on Redis, under the store's
    key prefix."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        """``client`` must not decode responses."""
        self._redis = client
        self._by_name = keys.api_keys_by_name()
        self._by_hash = keys.api_keys_by_hash()
        self._old = [] if isinstance(client, RedisCluster) else list(keys.old_api_keys())
        self._create = client.register_script(_CREATE)
        self._revoke = client.register_script(_REVOKE)
        self._move_old = client.register_script(_MOVE_OLD)

    async def _moved_old_keys(self) -> bool:
        """Move the keys kept under the old names, if any (single Redis only); True if some moved."""
        if not self._old:
            return False
        return bool(await self._move_old(keys=[*self._old, self._by_name, self._by_hash]))

    async def create(self, name: str, key_hash: str) -> bool:
        """Store a key under ``name``; False (nothing stored) when the name is taken."""
        await self._moved_old_keys()
        return bool(await self._create(keys=[self._by_name, self._by_hash], args=[name, key_hash]))

    async def revoke(self, name: str) -> bool:
        """Forget the key named ``name``; False when there is none."""
        await self._moved_old_keys()
        return bool(await self._revoke(keys=[self._by_name, self._by_hash], args=[name]))

    async def name_of(self, key_hash: str) -> str | None:
        """The name of the key with this hash, or None."""
        name = await self._name_of(key_hash)
        if name is None and await self._moved_old_keys():
            name = await self._name_of(key_hash)
        return name

    async def _name_of(self, key_hash: str) -> str | None:
        raw = cast(bytes | None, await self._redis.hget(self._by_hash, key_hash))
        return None if raw is None else raw.decode()

    async def names(self) -> list[str]:
        """Every key's name, sorted."""
        await self._moved_old_keys()
        return sorted(n.decode() for n in cast(list[bytes], await self._redis.hkeys(self._by_name)))
