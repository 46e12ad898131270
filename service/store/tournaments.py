"""Tournaments on Redis: each tournament is a stream of serialized events (entry id ``<version>-0``) with
optimistic appends, plus a secret (the source of its deals' seeds), an index, and a lease saying which
server process runs its scheduler."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import cast

import redis.asyncio as aioredis

from service.store.entries import Entries
from service.store.keys import Keys
from service.store.port import VersionConflictError

__all__ = ["RedisTournaments"]

# KEYS[1] log; ARGV[1] expected version, ARGV[2] time ms, then the events. Returns the new version, or
# {'conflict', current}.
_APPEND = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local current = 0
if last[1] then current = tonumber(string.match(last[1][1], '^(%d+)')) end
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
for i = 3, #ARGV do
  redis.call('XADD', KEYS[1], (current + i - 2) .. '-0', 'e', ARGV[i], 't', ARGV[2])
end
return {'ok', tostring(current + #ARGV - 2)}
"""

# Take or renew the lease KEYS[1] for owner ARGV[1] for ARGV[2] ms.
_LEASE = """
local owner = redis.call('GET', KEYS[1])
if owner == false or owner == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""


class RedisTournaments:
    """The tournament store (:class:`~service.store.tournament_port.TournamentStore`) on Redis, under the
    store's key prefix."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        """``client`` must not decode responses."""
        self._redis = client
        self._keys = keys
        self._append = client.register_script(_APPEND)
        self._lease = client.register_script(_LEASE)

    def _index(self) -> str:
        return f"{self._keys.prefix}:tournaments"

    def _secret(self, tournament_id: str) -> str:
        return f"{self._keys.prefix}:{{t:{tournament_id}}}:secret"

    async def create(self, tournament_id: str, secret: bytes, first: bytes, now_ms: int) -> None:
        """Start a tournament's log with its first event, and index it."""
        await self._redis.set(self._secret(tournament_id), secret)
        await self.append(tournament_id, [first], expected_version=0, now_ms=now_ms)
        await self._redis.zadd(self._index(), {tournament_id: now_ms})

    async def secret(self, tournament_id: str) -> bytes:
        """The tournament's secret."""
        return cast(bytes, await self._redis.get(self._secret(tournament_id)) or b"")

    async def append(self, tournament_id: str, events: Sequence[bytes], *, expected_version: int, now_ms: int) -> int:
        """Append if the log is at ``expected_version``; returns the new version. Raises VersionConflictError."""
        outcome, *values = await self._append(
            keys=[self._keys.tournament_log(tournament_id)], args=[expected_version, now_ms, *events]
        )
        if outcome == b"conflict":
            raise VersionConflictError(int(values[0]))
        return int(values[0])

    async def read(self, tournament_id: str, from_version: int = 1) -> list[tuple[int, int, bytes]]:
        """Every event from ``from_version`` on as (version, time ms, data)."""
        key = self._keys.tournament_log(tournament_id)
        entries = cast(Entries, await self._redis.xrange(key, min=f"{max(from_version, 1)}-0", max="+"))
        return [(int(i.decode().split("-")[0]), int(f.get(b"t", b"0")), f[b"e"]) for i, f in entries]

    async def tail(self, tournament_id: str, from_version: int) -> AsyncIterator[tuple[int, int, bytes]]:
        """Events from ``from_version`` on, then each new one as it is appended (runs until closed)."""
        version = max(from_version, 1)
        while True:
            batch = await self.read(tournament_id, version)
            for item in batch:
                yield item
                version = item[0] + 1
            if not batch:
                await asyncio.sleep(0.1)

    async def ids(self) -> list[str]:
        """Every tournament id, newest first."""
        return [i.decode() for i in cast(list[bytes], await self._redis.zrevrange(self._index(), 0, -1))]

    async def lease(self, tournament_id: str, owner: str, ms: int) -> bool:
        """Take or renew the scheduler lease; False if another owner holds it."""
        return bool(await self._lease(keys=[self._keys.tournament_lease(tournament_id)], args=[owner, ms]))

    async def release(self, tournament_id: str, owner: str) -> None:
        """Give up the lease if ``owner`` holds it."""
        key = self._keys.tournament_lease(tournament_id)
        if await self._redis.get(key) == owner.encode():
            await self._redis.delete(key)
