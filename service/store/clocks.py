"""Game clocks on Redis: each clocked game's time control and per-seat clock in a hash beside its log, and
one sorted set of deadlines that every server process polls.

A deadline is the member ``<game>|<seat>|<version>`` scored by its due time in ms. A process claims due
deadlines atomically by pushing their score a lease into the future (:meth:`RedisClocks.claim_due`), so two
processes never claim the same one at once, and one that dies holding a claim loses it when the lease
ends. The claimer removes the member once it has dealt with it.

Each clock hash also remembers the version up to which moves are charged (``charged``, so a move reported
again is not charged twice) and the newest version whose deadlines are set (``scheduled``); a set of the
clocked games still running lets any process find games whose deadlines were never set
(:meth:`RedisClocks.behind`).
"""

from __future__ import annotations

from typing import cast

import redis.asyncio as aioredis

from service.store.clock_port import ClockRecord, Deadline, Move
from service.store.keys import Keys

__all__ = ["ClockRecord", "Deadline", "Move", "RedisClocks"]  # the values are the port's, re-exported

# Start a seat's clock (HSETNX since:<seat>) only while the game is still at the version that made the
# seat pending; returns the clock's start (ms) or false when the game has moved on.
_START_TURN = """
local version = redis.call('HGET', KEYS[1], 'version')
if version ~= ARGV[1] then return false end
redis.call('HSETNX', KEYS[2], 'since:' .. ARGV[2], ARGV[3])
return redis.call('HGET', KEYS[2], 'since:' .. ARGV[2])
"""

# Give a game its clock (ARGV: field, value, ...) unless it has one; returns 1 if created.
_CREATE = """
if redis.call('HEXISTS', KEYS[1], 'move_ms') == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# Charge the moves of versions after 'charged', in order: ARGV[1] is the version read up to, then per move
# its version, seat, think time (ms) and timed-out flag ('1'/'0'). A seat's bank loses the time over
# move_ms and gains increment_ms; a timeout is counted and the seat dropped at max_timeouts; the seat's
# turn is over, so its clock start ('since:<seat>') is removed. Moves at or before 'charged' were charged
# already (by this or another process) and are skipped, so each move is charged once however often it is
# reported. Returns, for each timeout charged now, its version and 1 if its seat was dropped by it (else 0).
_CHARGE = """
local charged = tonumber(redis.call('HGET', KEYS[1], 'charged') or '0')
local move_ms = tonumber(redis.call('HGET', KEYS[1], 'move_ms'))
local bank_ms = tonumber(redis.call('HGET', KEYS[1], 'bank_ms') or '0')
local increment = tonumber(redis.call('HGET', KEYS[1], 'increment_ms') or '0')
local max_timeouts = tonumber(redis.call('HGET', KEYS[1], 'max_timeouts') or '3')
local charged_now = {}
for i = 2, #ARGV, 4 do
  local version, seat = tonumber(ARGV[i]), ARGV[i + 1]
  if version > charged then
    local bank = tonumber(redis.call('HGET', KEYS[1], 'bank:' .. seat) or bank_ms)
    local left = math.max(0, bank - math.max(0, tonumber(ARGV[i + 2]) - move_ms)) + increment
    redis.call('HSET', KEYS[1], 'bank:' .. seat, left)
    redis.call('HDEL', KEYS[1], 'since:' .. seat)
    if ARGV[i + 3] == '1' then
      local count = redis.call('HINCRBY', KEYS[1], 'timeouts:' .. seat, 1)
      local dropped = 0
      if count >= max_timeouts then dropped = redis.call('HSETNX', KEYS[1], 'dropped:' .. seat, 1) end
      table.insert(charged_now, version)
      table.insert(charged_now, dropped)
    end
  end
end
if tonumber(ARGV[1]) > charged then redis.call('HSET', KEYS[1], 'charged', ARGV[1]) end
return charged_now
"""

# Record that the deadlines of version ARGV[1] are set (the mark never moves back).
_SCHEDULED = """
local seen = tonumber(redis.call('HGET', KEYS[1], 'scheduled') or '0')
if seen < tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'scheduled', ARGV[1]) end
return 0
"""

# Claim up to ARGV[2] deadlines due at ARGV[1] by moving them to ARGV[3] (the end of the lease).
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[3], member)
end
return due
"""


class RedisClocks:
    """The clock store (:class:`~service.store.clock_port.ClockStore`) on Redis: clock hashes and the
    deadline set, under the store's key prefix."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        """``client`` must not decode responses."""
        self._redis = client
        self._keys = keys
        self._start_turn = client.register_script(_START_TURN)
        self._claim = client.register_script(_CLAIM)
        self._create = client.register_script(_CREATE)
        self._charge = client.register_script(_CHARGE)
        self._scheduled = client.register_script(_SCHEDULED)

    async def create(self, game_id: str, fields: dict[str, int], seats: int, version: int) -> bool:
        """Give a game at ``version`` its clock, unless it has one: the time control ``fields`` (with
        ``bank_ms``) and a full bank for each seat. True if created."""
        await self._redis.sadd(self._keys.clocked_games(), game_id)
        banks = {f"bank:{s}": fields["bank_ms"] for s in range(seats)}
        mapping: dict[str, int] = {**fields, **banks, "charged": version, "scheduled": version}
        args = [item for pair in mapping.items() for item in pair]
        return bool(await self._create(keys=[self._keys.clock(game_id)], args=args))

    async def load(self, game_id: str) -> ClockRecord | None:
        """The game's clock, or None when the game has no clock."""
        raw = cast(dict[bytes, bytes], await self._redis.hgetall(self._keys.clock(game_id)))
        if b"move_ms" not in raw:
            return None
        return ClockRecord.parse({k.decode(): v.decode() for k, v in raw.items()})

    async def turn_started(self, game_id: str, seat: int) -> int | None:
        """When the seat's clock started (HGET of ``since:<seat>``), or None when it is not running."""
        raw = await self._redis.hget(self._keys.clock(game_id), f"since:{seat}")
        return None if raw is None else int(raw)

    async def start_turn(self, game_id: str, seat: int, version: int, now_ms: int) -> int | None:
        """Start the seat's clock at ``now_ms`` unless it is running already; returns when it started, or
        None when the game is no longer at ``version``."""
        keys = [self._keys.meta(game_id), self._keys.clock(game_id)]
        since = await self._start_turn(keys=keys, args=[version, seat, now_ms])
        return None if since is None else int(since)

    async def charge(self, game_id: str, version: int, moves: list[Move]) -> dict[int, bool]:
        """Charge ``moves`` (every move after the clock's ``charged`` version up to ``version``, in
        order); moves charged before are skipped. Returns the timeouts charged now: version -> whether
        that timeout dropped its seat."""
        args = [version] + [item for m in moves for item in (m.version, m.seat, m.think_ms, int(m.timed_out))]
        reply = [int(item) for item in await self._charge(keys=[self._keys.clock(game_id)], args=args)]
        return {reply[i]: bool(reply[i + 1]) for i in range(0, len(reply), 2)}

    async def mark_scheduled(self, game_id: str, version: int) -> None:
        """Record that the deadlines of ``version`` are set."""
        await self._scheduled(keys=[self._keys.clock(game_id)], args=[version])

    async def finish(self, game_id: str) -> None:
        """Forget a game that is over (its clock stays, for the record)."""
        await self._redis.srem(self._keys.clocked_games(), game_id)

    async def behind(self) -> list[tuple[str, int]]:
        """Running clocked games whose newest version has no deadlines set yet, as (game id, version).
        Games that no longer exist are forgotten."""
        members = cast(set[bytes], await self._redis.smembers(self._keys.clocked_games()))
        ids = [member.decode() for member in members]
        if not ids:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hget(self._keys.meta(game_id), "version")
                pipe.hget(self._keys.clock(game_id), "scheduled")
            replies = await pipe.execute()
        found: list[tuple[str, int]] = []
        for game_id, version, scheduled in zip(ids, replies[::2], replies[1::2], strict=True):
            if version is None:
                await self.finish(game_id)
            elif int(version) > int(scheduled or 0):
                found.append((game_id, int(version)))
        return found

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
