"""API keys on Redis: two hashes under the key prefix, name -> key hash and key hash -> name (only the
hashes of keys are kept)."""

from __future__ import annotations

from typing import cast

import redis.asyncio as aioredis

from service.store.keys import Keys

__all__ = ["RedisApiKeys"]

# KEYS: by name, by hash. ARGV: name, key hash. 1 if created, 0 if the name is taken.
_CREATE = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
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


class RedisApiKeys:
    """The API keys of a deployment."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        """``client`` must not decode responses."""
        self._redis = client
        self._by_name = f"{keys.prefix}:apikeys:by_name"
        self._by_hash = f"{keys.prefix}:apikeys:by_hash"
        self._create = client.register_script(_CREATE)
        self._revoke = client.register_script(_REVOKE)

    async def create(self, name: str, key_hash: str) -> bool:
        """Store a key under ``name``; False (nothing stored) when the name is taken."""
        return bool(await self._create(keys=[self._by_name, self._by_hash], args=[name, key_hash]))

    async def revoke(self, name: str) -> bool:
        """Forget the key named ``name``; False when there is none."""
        return bool(await self._revoke(keys=[self._by_name, self._by_hash], args=[name]))

    async def name_of(self, key_hash: str) -> str | None:
        """The name of the key with this hash, or None."""
        raw = cast(bytes | None, await self._redis.hget(self._by_hash, key_hash))
        return None if raw is None else raw.decode()

    async def names(self) -> list[str]:
        """Every key's name, sorted."""
        return sorted(n.decode() for n in cast(list[bytes], await self._redis.hkeys(self._by_name)))
