"""Tournaments on Redis. A tournament's log is kept by the game log's own store
(:class:`~service.store.redis_store.RedisEventStore`, under the tournament key names of
:meth:`~service.store.keys.Keys.tournament_logs`): the same stream entries ``<version>-0``, the same Lua
append with its expected version and idempotent ids, the same range reads, and live tails through a
:class:`~service.store.tail.TailHub` (one shared blocking read for every tournament this process
watches). What is only a tournament's is small and lives here: the secret (in the log's metadata hash,
written with the first event), the index of tournaments, and the scheduler lease."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import cast

from service.store.connection import RedisClient
from service.store.keys import Keys
from service.store.port import AppendResult, NewCommand, NewEvent, StoredEvent, event_digest
from service.store.redis_store import RedisEventStore

__all__ = ["RedisTournaments"]

_PAGE = 1000
_SECRET = "secret"

# Take or renew the lease KEYS[1] for owner ARGV[1] for ARGV[2] ms.
_LEASE = """
local owner = redis.call('GET', KEYS[1])
if owner == false or owner == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

# Give up the lease KEYS[1] if owner ARGV[1] holds it (checked and deleted in one step).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisTournaments:
    """The tournament store (:class:`~service.store.tournament_port.TournamentStore`) on Redis, under the
    store's key prefix."""

    def __init__(
        self, client: RedisClient, keys: Keys, *, replica_acks: int = 0, replica_ack_timeout_ms: int = 2000
    ) -> None:
        """``client`` must not decode responses. With ``replica_acks``, an append (a registration, a
        scheduling step) returns only once that many replicas hold it, as a game's command does (else it
        raises StoreUnavailableError; the append itself may have happened, and repeating it is safe)."""
        self._redis = client
        self._keys = keys
        self._logs = RedisEventStore(
            client, keys.tournament_logs(), replica_acks=replica_acks, replica_ack_timeout_ms=replica_ack_timeout_ms
        )
        self._lease = client.register_script(_LEASE)
        self._release = client.register_script(_RELEASE)

    async def create(self, tournament_id: str, secret: bytes, first: bytes, now_ms: int) -> None:
        """Append the first event at version 0 with the secret in the log's metadata (one script), then
        index the tournament."""
        await self._logs.append(
            tournament_id,
            NewCommand(
                [NewEvent(first)],
                expected_version=0,
                command_id="",
                digest="",
                seat=None,
                meta={_SECRET: secret.hex()},
                recorded_at_ms=now_ms,
            ),
        )
        await self._redis.zadd(self._keys.tournaments(), {tournament_id: now_ms})

    async def secret(self, tournament_id: str) -> bytes:
        """The secret kept in the log's metadata."""
        meta = await self._logs.meta(tournament_id)
        return bytes.fromhex(meta.get(_SECRET, "")) if meta else b""

    async def append(
        self,
        tournament_id: str,
        events: Sequence[bytes],
        *,
        expected_version: int,
        now_ms: int,
        event_id: str = "",
        final: bool = False,
        expected_last: str = "",
    ) -> AppendResult:
        """The game log's append; ``event_id`` is its command id, with the events' digest."""
        return await self._logs.append(
            tournament_id,
            NewCommand(
                [NewEvent(data) for data in events],
                expected_version=expected_version,
                command_id=event_id,
                digest=_digest(events) if event_id else "",
                seat=None,
                final=final,
                recorded_at_ms=now_ms,
                expected_last=expected_last,
            ),
        )

    async def read(self, tournament_id: str, from_version: int = 1) -> list[StoredEvent]:
        """Every event from ``from_version`` on, read in pages of the game log's range reads."""
        events: list[StoredEvent] = []
        start = max(from_version, 1)
        while True:
            page = await self._logs.read(tournament_id, start, _PAGE)
            events.extend(page)
            if len(page) < _PAGE:
                return events
            start = page[-1].version + 1

    def tail(self, tournament_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        """The game log's tail: history from ``from_version``, then live events from the shared reader."""
        return self._logs.tail(tournament_id, from_version)

    async def ids(self) -> list[str]:
        """Every tournament id, newest first."""
        raw = cast(list[bytes], await self._redis.zrevrange(self._keys.tournaments(), 0, -1))
        return [i.decode() for i in raw]

    async def lease(self, tournament_id: str, owner: str, ms: int) -> bool:
        """Take or renew the scheduler lease; False if another owner holds it."""
        return bool(await self._lease(keys=[self._keys.tournament_lease(tournament_id)], args=[owner, ms]))

    async def release(self, tournament_id: str, owner: str) -> None:
        """Give up the lease if ``owner`` holds it."""
        await self._release(keys=[self._keys.tournament_lease(tournament_id)], args=[owner])

    async def close(self) -> None:
        """Stop the shared live reader of tournament logs."""
        await self._logs.close()


def _digest(events: Sequence[bytes]) -> str:
    """What identifies a batch of events for an idempotent append (each event length-prefixed)."""
    return event_digest(b"".join(len(data).to_bytes(4, "big") + data for data in events))
