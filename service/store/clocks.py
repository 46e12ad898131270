"""Game clocks on Redis: each clocked game's time control and per-seat clock in a hash beside its log, and
one sorted set of deadlines that every server process polls.

A deadline is the member ``<game>|<seat>|<version>`` scored by its due time in ms. A process claims due
deadlines atomically by pushing their score a lease into the future (:meth:`RedisClocks.claim_due`), so two
processes never claim the same one at once, and one that dies holding a claim loses it when the lease
ends. The claimer removes the member once it has dealt with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import redis.asyncio as aioredis

from service.store.keys import Keys

__all__ = ["ClockRecord", "Deadline", "RedisClocks"]

# Start a seat's clock (HSETNX since:<seat>) only while the game is still at the version that made the
# seat pending; returns the clock's start (ms) or false when the game has moved on.
_START_TURN = """
local version = redis.call('HGET', KEYS[1], 'version')
if version ~= ARGV[1] then return false end
redis.call('HSETNX', KEYS[2], 'since:' .. ARGV[2], ARGV[3])
return redis.call('HGET', KEYS[2], 'since:' .. ARGV[2])
"""

# Claim up to ARGV[2] deadlines due at ARGV[1] by moving them to ARGV[3] (the end of the lease).
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[3], member)
end
return due
"""


@dataclass(frozen=True)
class Deadline:
    """A seat must act at ``version`` of ``game_id``."""

    game_id: str
    seat: int
    version: int

    @property
    def member(self) -> str:
        """The sorted-set member naming this deadline."""
        return f"{self.game_id}|{self.seat}|{self.version}"

    @classmethod
    def parse(cls, member: str) -> Deadline:
        """The deadline a member names."""
        game_id, seat, version = member.split("|")
        return cls(game_id, int(seat), int(version))


@dataclass(frozen=True)
class ClockRecord:
    """A game's clock as stored: the time control and each seat's bank, timeouts and dropped flag."""

    move_ms: int
    bank_ms: int
    increment_ms: int
    max_timeouts: int
    banks: dict[int, int]
    timeouts: dict[int, int]
    dropped: frozenset[int]
    since: dict[int, int]

    @classmethod
    def parse(cls, raw: dict[str, str]) -> ClockRecord:
        """The record of a clock hash's fields."""

        def per_seat(prefix: str) -> dict[int, int]:
            return {int(k[len(prefix) :]): int(v) for k, v in raw.items() if k.startswith(prefix)}

        return cls(
            move_ms=int(raw["move_ms"]),
            bank_ms=int(raw.get("bank_ms", 0)),
            increment_ms=int(raw.get("increment_ms", 0)),
            max_timeouts=int(raw.get("max_timeouts", 3)),
            banks=per_seat("bank:"),
            timeouts=per_seat("timeouts:"),
            dropped=frozenset(s for s, v in per_seat("dropped:").items() if v),
            since=per_seat("since:"),
        )


class RedisClocks:
    """Clock hashes and the deadline set, under the store's key prefix."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        """``client`` must not decode responses."""
        self._redis = client
        self._keys = keys
        self._start_turn = client.register_script(_START_TURN)
        self._claim = client.register_script(_CLAIM)

    async def create(self, game_id: str, fields: dict[str, int], seats: int, bank_ms: int) -> None:
        """Give a game its clock: the time control ``fields`` and a full bank for each seat."""
        mapping: dict[str, int] = {**fields, **{f"bank:{s}": bank_ms for s in range(seats)}}
        await self._redis.hset(self._keys.clock(game_id), mapping=mapping)  # type: ignore[arg-type]

    async def load(self, game_id: str) -> ClockRecord | None:
        """The game's clock, or None when the game has no clock."""
        raw = cast(dict[bytes, bytes], await self._redis.hgetall(self._keys.clock(game_id)))
        if b"move_ms" not in raw:
            return None
        return ClockRecord.parse({k.decode(): v.decode() for k, v in raw.items()})

    async def start_turn(self, game_id: str, seat: int, version: int, now_ms: int) -> int | None:
        """Start the seat's clock at ``now_ms`` unless it is running already; returns when it started, or
        None when the game is no longer at ``version``."""
        keys = [self._keys.meta(game_id), self._keys.clock(game_id)]
        since = await self._start_turn(keys=keys, args=[version, seat, now_ms])
        return None if since is None else int(since)

    async def charge(self, game_id: str, seat: int, bank_ms: int, *, timed_out: bool, max_timeouts: int) -> bool:
        """Set the seat's bank; count a timeout and drop the seat at ``max_timeouts``. True if dropped now."""
        key = self._keys.clock(game_id)
        await self._redis.hset(key, f"bank:{seat}", bank_ms)
        if not timed_out:
            return False
        count = int(await self._redis.hincrby(key, f"timeouts:{seat}", 1))
        if count >= max_timeouts:
            return bool(await self._redis.hsetnx(key, f"dropped:{seat}", 1))
        return False

    async def set_deadline(self, deadline: Deadline, due_ms: int) -> None:
        """Add (or move) a deadline."""
        await self._redis.zadd(self._keys.deadlines(), {deadline.member: due_ms})

    async def claim_due(self, now_ms: int, limit: int, lease_ms: int) -> list[Deadline]:
        """Claim the deadlines due at ``now_ms`` (at most ``limit``) for ``lease_ms``."""
        members = await self._claim(keys=[self._keys.deadlines()], args=[now_ms, limit, now_ms + lease_ms])
        return [Deadline.parse(m.decode()) for m in members]

    async def done(self, deadline: Deadline) -> None:
        """Forget a deadline that was dealt with."""
        await self._redis.zrem(self._keys.deadlines(), deadline.member)

    async def next_due(self) -> int | None:
        """The earliest due time (ms) of any deadline, or None when there is none."""
        first = await self._redis.zrange(self._keys.deadlines(), 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    async def pending(self) -> int:
        """How many deadlines are waiting (claimed or not)."""
        return int(await self._redis.zcard(self._keys.deadlines()))
