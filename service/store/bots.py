"""Bots on Redis: each bot's identity (the hash of its key) and its stream of seat assignments."""

from __future__ import annotations

from typing import cast

import redis.asyncio as aioredis

from service.store.bot_port import AssignmentRecord
from service.store.entries import Entries
from service.store.keys import Keys

__all__ = ["AssignmentRecord", "RedisBots"]  # the record is the port's, re-exported

# KEYS: assignments stream, assigned seats set. ARGV: "<game>:<seat>", then the entry's fields and values.
_ASSIGN_ONCE = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
return 1
"""

# KEYS: assignments stream, assigned seats set. ARGV: the entry's id, "<game>:<seat>".
_DROP = """
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1
"""


class RedisBots:
    """The bot store (:class:`~service.store.bot_port.BotStore`) on Redis: bot identities and assignments,
    under the store's key prefix."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        """``client`` must not decode responses."""
        self._redis = client
        self._keys = keys
        self._assign_once = client.register_script(_ASSIGN_ONCE)
        self._drop = client.register_script(_DROP)

    async def key_hash(self, name: str, new_hash: str | None) -> str | None:
        """The bot's stored key hash, set to ``new_hash`` first if the bot is new (None: a new bot stays
        unknown and None is returned)."""
        key = self._keys.bot(name)
        if new_hash is not None:
            await self._redis.hsetnx(key, "key_hash", new_hash)
        raw = cast(bytes | None, await self._redis.hget(key, "key_hash"))
        return None if raw is None else raw.decode()

    async def release(self, name: str) -> bool:
        """HDEL of the key hash."""
        return bool(await self._redis.hdel(self._keys.bot(name), "key_hash"))

    async def set_games(self, name: str, games: list[str]) -> None:
        """Remember the games the bot said it plays (empty: any)."""
        await self._redis.hset(self._keys.bot(name), "games", ",".join(games))

    async def games(self, name: str) -> list[str]:
        """The games the bot last said it plays (empty: any, or it never said)."""
        raw = cast(bytes | None, await self._redis.hget(self._keys.bot(name), "games"))
        return [g for g in (raw or b"").decode().split(",") if g]

    async def assign(self, name: str, record: AssignmentRecord) -> bool:
        """Add an assignment to the bot's stream, unless the bot already has that seat (atomically, so a
        scheduler that repeats the step after a crash never gives a seat twice). True if it was added."""
        keys = [self._keys.assignments(name), self._keys.assigned_seats(name)]
        fields = [item for pair in record.fields().items() for item in pair]
        return bool(await self._assign_once(keys=keys, args=[f"{record.game_id}:{record.seat}", *fields]))

    async def assignments(
        self, name: str, after: str = "0", block_ms: int | None = None
    ) -> list[tuple[str, AssignmentRecord]]:
        """Assignments after stream id ``after`` as (id, record); with ``block_ms`` wait that long for one."""
        key = self._keys.assignments(name)
        if block_ms is None:
            entries = cast(Entries, await self._redis.xrange(key, min=f"({after}" if after != "0" else "-", max="+"))
            return [(i.decode(), AssignmentRecord.parse(f)) for i, f in entries]
        reply = cast(list[tuple[bytes, Entries]], await self._redis.xread({key: after}, block=block_ms, count=100))
        return [(i.decode(), AssignmentRecord.parse(f)) for _, items in reply or [] for i, f in items]

    async def drop_assignment(self, name: str, entry_id: str, record: AssignmentRecord) -> None:
        """XDEL of the entry and SREM of its seat, in one script (the keys share the bot's hash slot)."""
        keys = [self._keys.assignments(name), self._keys.assigned_seats(name)]
        await self._drop(keys=keys, args=[entry_id, f"{record.game_id}:{record.seat}"])
