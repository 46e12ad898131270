"""Bots on Redis: each bot's identity (the hash of its key) and its stream of seat assignments.

A name held by a session only (see :meth:`RedisBots.key_hash`) is its identity hash with a ``holder``
field and an expiry; binding it removes both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import redis.asyncio as aioredis

from service.store.bot_port import AssignmentRecord, BotNotice, parse_entry
from service.store.entries import Entries
from service.store.keys import Keys

__all__ = ["AssignmentRecord", "RedisBots"]  # the record is the port's, re-exported

# KEYS: assignments stream, assigned seats set. ARGV: "<game>:<seat>", then the entry's fields and values.
_ASSIGN_ONCE = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
return 1
"""

# KEYS: the bot's hash. ARGV: key hash, holder ("" for good), hold in ms. Registers a new name; the
# stored key hash.
_REGISTER = """
if redis.call('HSETNX', KEYS[1], 'key_hash', ARGV[1]) == 1 then
  if ARGV[2] ~= '' then
    redis.call('HSET', KEYS[1], 'holder', ARGV[2])
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
  else
    redis.call('HDEL', KEYS[1], 'holder')
    redis.call('PERSIST', KEYS[1])
  end
end
return redis.call('HGET', KEYS[1], 'key_hash')
"""

# KEYS: the bot's hash. ARGV: holder, hold in ms. A held name passes to the holder for that long.
_HOLD = """
if redis.call('HEXISTS', KEYS[1], 'holder') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'holder', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: the bot's hash. ARGV: holder, hold in ms. The holder's hold lasts that long from now.
_RENEW = """
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: the bot's hash. ARGV: holder. The holder's name is forgotten.
_LET_GO = """
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""

# KEYS: the bot's hash. A held name is kept for good; 0 if there is no such name.
_BIND = """
if redis.call('HEXISTS', KEYS[1], 'key_hash') == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'holder')
redis.call('PERSIST', KEYS[1])
return 1
"""

# KEYS: assignments stream, assigned seats set. ARGV: the entry's id, "<game>:<seat>".
_DROP = """
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1
"""


# KEYS: the bot's presence key. ARGV: the session. Deleted only if that session set it last.
_ABSENT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
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
        self._register = client.register_script(_REGISTER)
        self._hold = client.register_script(_HOLD)
        self._renew = client.register_script(_RENEW)
        self._let_go = client.register_script(_LET_GO)
        self._bind = client.register_script(_BIND)
        self._absent = client.register_script(_ABSENT)

    async def key_hash(self, name: str, new_hash: str | None, *, holder: str = "", hold_ms: int = 0) -> str | None:
        """The bot's stored key hash, set to ``new_hash`` first if the bot is new (None: a new bot stays
        unknown and None is returned); with ``holder``, a new name is held by it for ``hold_ms``."""
        key = self._keys.bot(name)
        if new_hash is None:
            raw = cast(bytes | None, await self._redis.hget(key, "key_hash"))
        else:
            raw = cast(bytes | None, await self._register(keys=[key], args=[new_hash, holder, hold_ms]))
        return None if raw is None else raw.decode()

    async def hold(self, name: str, holder: str, hold_ms: int) -> bool:
        """Give a held name's hold to ``holder`` for ``hold_ms``; False for a name kept for good (or none)."""
        return bool(await self._hold(keys=[self._keys.bot(name)], args=[holder, hold_ms]))

    async def renew(self, name: str, holder: str, hold_ms: int) -> bool:
        """Extend ``holder``'s hold to ``hold_ms`` from now; False if it no longer holds the name."""
        return bool(await self._renew(keys=[self._keys.bot(name)], args=[holder, hold_ms]))

    async def let_go(self, name: str, holder: str) -> bool:
        """Forget the name if ``holder`` holds it; True if it did."""
        return bool(await self._let_go(keys=[self._keys.bot(name)], args=[holder]))

    async def bind(self, name: str) -> bool:
        """Keep a held name for good (no holder, no expiry); False if there is no such name."""
        return bool(await self._bind(keys=[self._keys.bot(name)]))

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
    ) -> list[tuple[str, AssignmentRecord | BotNotice]]:
        """The stream's entries after stream id ``after`` as (id, entry); with ``block_ms`` wait that long
        for one."""
        key = self._keys.assignments(name)
        if block_ms is None:
            entries = cast(Entries, await self._redis.xrange(key, min=f"({after}" if after != "0" else "-", max="+"))
            return [(i.decode(), parse_entry(f)) for i, f in entries]
        reply = cast(list[tuple[bytes, Entries]], await self._redis.xread({key: after}, block=block_ms, count=100))
        return [(i.decode(), parse_entry(f)) for _, items in reply or [] for i, f in items]

    async def notify(self, name: str, notice: BotNotice) -> None:
        """XADD of the notice to the bot's stream."""
        await self._redis.xadd(self._keys.assignments(name), notice.fields())  # type: ignore[arg-type]  # redis's stubs want a dict of its own key types

    async def mark_present(self, name: str, session: str, ttl_ms: int) -> None:
        """The bot is connected (by ``session``) for ``ttl_ms`` from now."""
        await self._redis.set(self._keys.bot_presence(name), session, px=ttl_ms)

    async def mark_absent(self, name: str, session: str) -> None:
        """The bot is gone, unless a newer session marked it present."""
        await self._absent(keys=[self._keys.bot_presence(name)], args=[session])

    async def present(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` marked present (one EXISTS per bot: each bot's keys have a slot of their own)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.exists(self._keys.bot_presence(name))
            found = await pipe.execute()
        return {name for name, exists in zip(names, found, strict=True) if exists}

    async def drop_assignment(self, name: str, entry_id: str, record: AssignmentRecord) -> None:
        """XDEL of the entry and SREM of its seat, in one script (the keys share the bot's hash slot)."""
        keys = [self._keys.assignments(name), self._keys.assigned_seats(name)]
        await self._drop(keys=keys, args=[entry_id, f"{record.game_id}:{record.seat}"])
