"""The game index: sorted sets of game ids by creation time (``all``, ``status:<s>``, ``game:<name>``).

The index is derived from each game's metadata hash, which the atomic append keeps. It cannot be changed in
that same script on a Redis Cluster (a game's keys live in its own slot, the index in others), so every
change is announced first: the game id goes into the ``reindex`` set before the write that creates the game
or changes its status, and leaves it only once the index agrees with the metadata. A process that stops in
between leaves the mark behind, and the next listing repairs that game's entries from its metadata. A mark
younger than ``_SETTLE_MS`` belongs to a write that may still be in flight, so it is left to its writer.

The index keys are not per game, so each lives in one cluster slot on purpose: a listing needs one order
over all games, and these sets change only twice per game (creation and end), so one node carries them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from service.store.connection import RedisClient
from service.store.keys import Keys

__all__ = ["GameIndex", "both_name"]

_INDEXED = ("status", "game")
_STATUSES = ("running", "finished")
_SETTLE_MS = 5000
_REPAIR_BATCH = 200

# Remove the mark KEYS[1] of game ARGV[1] if it is still the one set at ARGV[2] (a newer one stays).
_CLEAR = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


def both_name(game: str, status: str) -> str:
    """The name of the index of the games of ``game`` with ``status``."""
    return f"game:{game}:status:{status}"


class GameIndex:
    """The index of games under a key prefix, kept right even when a process stops mid-change."""

    def __init__(self, client: RedisClient, keys: Keys, now_ms: Callable[[], int]) -> None:
        """``now_ms`` is the store's clock."""
        self._redis = client
        self._keys = keys
        self._now_ms = now_ms
        self._clear = client.register_script(_CLEAR)

    def _reindex(self) -> str:
        return self._keys.index("reindex")

    async def announce(self, game_id: str) -> int:
        """Mark the game as about to change; returns the mark (pass it to :meth:`settle`)."""
        mark = self._now_ms()
        await self._redis.zadd(self._reindex(), {game_id: mark})
        return mark

    async def settle(self, game_id: str, meta: Mapping[str, str], mark: int) -> None:
        """Make the game's index entries agree with ``meta`` (its metadata), then drop the mark."""
        created = int(meta.get("created_ms") or 0)
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(self._keys.index("all"), {game_id: created})
        for field in _INDEXED:
            if field in meta:
                pipe.zadd(self._keys.index(f"{field}:{meta[field]}"), {game_id: created})
        game, status = meta.get("game"), meta.get("status")
        if game and status:
            pipe.zadd(self._keys.index(both_name(game, status)), {game_id: created})
        for other in _STATUSES:
            if other != status:
                pipe.zrem(self._keys.index(f"status:{other}"), game_id)
                if game:
                    pipe.zrem(self._keys.index(both_name(game, other)), game_id)
        if isinstance(self._redis, RedisCluster):  # the nodes run a pipeline's parts in no set order
            await pipe.execute()
            await self.drop(game_id, mark)
            return
        pipe.execute_command("EVALSHA", self._clear.sha, 1, self._reindex(), game_id, mark)  # after the index
        *replies, cleared = await pipe.execute(raise_on_error=False)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        if isinstance(cleared, NoScriptError):  # Redis restarted since the script was loaded
            await self.drop(game_id, mark)
        elif isinstance(cleared, Exception):
            raise cleared

    async def drop(self, game_id: str, mark: int) -> None:
        """Drop the game's mark if it is still ``mark`` (a newer change's mark stays)."""
        await self._clear(keys=[self._reindex()], args=[game_id, mark])

    async def repair(self) -> None:
        """Settle every game whose mark is older than a write takes (its writer stopped)."""
        older = self._now_ms() - _SETTLE_MS
        marks = await self._redis.zrangebyscore(
            self._reindex(), "-inf", older, start=0, num=_REPAIR_BATCH, withscores=True
        )
        for raw_id, score in cast(list[tuple[bytes, float]], marks):
            game_id = raw_id.decode()
            meta = cast(dict[bytes, bytes], await self._redis.hgetall(self._keys.meta(game_id)))
            if not meta:  # its creation never happened
                await self.drop(game_id, int(score))
                continue
            await self.settle(game_id, {k.decode(): v.decode() for k, v in meta.items()}, int(score))
