"""The event store on Redis: streams for logs, one Lua script for appends, sorted sets for the index.

The same code runs on one Redis and on a Redis Cluster: every script touches only one game's keys (they
share the ``{g:<id>}`` hash tag, so one slot), and the index, which spans games, is kept by
:class:`~service.store.index.GameIndex`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from importlib import resources
from typing import Any, cast

from service.store.acks import ScriptRunner
from service.store.batching import GroupCommit
from service.store.connection import RedisClient
from service.store.entries import Entries, parse_entry
from service.store.index import GameIndex, both_name
from service.store.keys import Keys
from service.store.port import (
    AppendResult,
    CommandIdReusedError,
    GamePage,
    LogDivergedError,
    MetaClaim,
    NewCommand,
    NewEvent,
    StoredEvent,
    StoreError,
    VersionConflictError,
)
from service.store.tail import OUTAGE_S, TailHub

__all__ = ["RedisEventStore"]

_APPEND = resources.files(__package__).joinpath("append.lua").read_text(encoding="utf-8")
# KEYS: a hash. ARGV: field, value. Sets the field only if it exists; 1 if it did.
_REPLACE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
# KEYS: a hash. ARGV: field, value, guard field ('' = none), guard value. Sets the field only if the hash
# exists, the field does not and the guard field does not hold the guard value. Returns nil for no hash,
# else {1 if set else 0, the hash's fields and values afterwards}.
_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local set = 0
if ARGV[3] == '' or redis.call('HGET', KEYS[1], ARGV[3]) ~= ARGV[4] then
  set = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
end
return {set, redis.call('HGETALL', KEYS[1])}
"""


class RedisEventStore:
    """:class:`~service.store.port.EventStore` on a Redis server (embedded or remote, same code)."""

    def __init__(
        self,
        client: RedisClient,
        keys: Keys | None = None,
        clock_ms: Any = None,
        *,
        replica_acks: int = 0,
        replica_ack_timeout_ms: int = 2000,
        live_gives_way: Callable[[], Awaitable[None]] | None = None,
        watch_outage_s: float = OUTAGE_S,
        group_commit: bool = True,
        appends_may_join: Callable[[], bool] | None = None,
    ) -> None:
        """``client`` must not decode responses. ``clock_ms`` returns the time in ms (injected for tests).
        With ``replica_acks`` an append returns only once that many replicas hold it (else it raises
        StoreUnavailableError after ``replica_ack_timeout_ms``; the append itself may have happened).
        ``live_gives_way`` is awaited by the live tails' fan-out before it wakes each slice of watchers.
        ``watch_outage_s``: how long live tails wait for an unreachable Redis before their streams end.
        With ``group_commit`` (the default) appends ready at the same time share round trips to Redis (see
        :class:`~service.store.batching.GroupCommit`); without it each append is a round trip of its own.
        ``appends_may_join`` says whether other appends may soon join one being made (other commands are
        under way); when it says no, the append is not held for them (by default it always may)."""
        self._redis = client
        self._keys = keys or Keys()
        script = client.register_script(_APPEND)
        runner = ScriptRunner(client, script, replica_acks, replica_ack_timeout_ms)
        self._append: ScriptRunner | GroupCommit = (
            GroupCommit(runner, may_join=appends_may_join) if group_commit else runner
        )
        self._replace = client.register_script(_REPLACE)
        self._claim = client.register_script(_CLAIM)
        self._clock_ms = clock_ms
        self._index = GameIndex(client, self._keys, self._now_ms)
        self._hub = TailHub(client, self._keys, self.read, live_gives_way, outage_s=watch_outage_s)

    def _now_ms(self) -> int:
        if self._clock_ms is None:
            raise StoreError("RedisEventStore needs a clock")
        return int(self._clock_ms())

    async def create(self, game_id: str, meta: Mapping[str, str], events: Sequence[NewEvent]) -> dict[str, str]:
        """Create a game with its metadata and setup events, and index it by time, status and game. A
        ``created_ms`` in ``meta`` (an imported game's) is kept and stamps the setup events. An existing
        game makes the append (expected at version 0) conflict; only a game without setup events is looked
        for first."""
        if not events and await self._redis.exists(self._keys.meta(game_id)):
            raise StoreError(f"game {game_id} already exists")
        created = int(meta.get("created_ms") or self._now_ms())
        fields = {**meta, "created_ms": str(created)}
        mark = await self._index.announce(game_id)
        try:
            await self.append(
                game_id,
                NewCommand(
                    events, expected_version=0, command_id="", digest="", seat=None, meta=fields, recorded_at_ms=created
                ),
            )
        except VersionConflictError as error:
            await self._index.drop(game_id, mark)
            raise StoreError(f"game {game_id} already exists") from error
        await self._index.settle(game_id, fields, mark)
        return {"version": str(len(events)), "updated_ms": str(created), **fields}  # as the append script sets it

    async def append(self, game_id: str, command: NewCommand) -> AppendResult:
        """Append atomically (see the port). Moves the game between status indexes when ``meta`` changes
        its status (announced first, so a stop in between is repaired by a later listing)."""
        pairs = [item for pair in (command.meta or {}).items() for item in pair]
        now = self._now_ms() if command.recorded_at_ms is None else command.recorded_at_ms
        args: list[Any] = [
            command.expected_version,
            command.command_id,
            command.digest,
            now,
            "" if command.seat is None else command.seat,
            command.command,
            "1" if command.final else "",
            len(command.events),
            len(pairs) // 2,
            *(e.data for e in command.events),
            *pairs,
            "1" if command.timed_out else "",
            "" if command.think_ms is None else command.think_ms,
            command.expected_last,
        ]
        keys = [self._keys.log(game_id), self._keys.meta(game_id), self._keys.commands(game_id)]
        moves = bool(command.meta and "status" in command.meta and command.expected_version > 0)
        mark = await self._index.announce(game_id) if moves else 0
        outcome, *values = await self._append(keys, args)
        if outcome == b"conflict":
            raise VersionConflictError(int(values[0]))
        if outcome == b"forked":
            raise LogDivergedError(int(values[0]))
        if outcome == b"dup":
            previous_digest, first, last = values[0].decode().rsplit(":", 2)
            if previous_digest != command.digest:
                raise CommandIdReusedError(f"command id {command.command_id!r} was used for another command")
            return AppendResult(int(first), int(last), duplicate=True)
        if moves:
            await self._settle(game_id, mark)
        return AppendResult(int(values[0]), int(values[1]), recorded_at_ms=now, think_ms=command.think_ms or 0)

    async def _settle(self, game_id: str, mark: int) -> None:
        current = await self.meta(game_id)
        if current is not None:
            await self._index.settle(game_id, current, mark)

    async def read(self, game_id: str, from_version: int, limit: int) -> list[StoredEvent]:
        """Up to ``limit`` events from ``from_version`` on (XRANGE on the version ids)."""
        start = f"{max(from_version, 1)}-0"
        entries = cast(Entries, await self._redis.xrange(self._keys.log(game_id), min=start, max="+", count=limit))
        return [parse_entry(entry_id, fields) for entry_id, fields in entries]

    def tail(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        """History from ``from_version``, then live events through this process's one reader per game."""
        return self._hub.tail(game_id, from_version)

    def tail_commands(self, game_id: str, from_version: int) -> AsyncIterator[list[StoredEvent]]:
        """The same, a command's events together (see :meth:`TailHub.tail_commands`)."""
        return self._hub.tail_commands(game_id, from_version)

    async def find_command(self, game_id: str, command_id: str) -> tuple[str, int, int] | None:
        """HGET on the command-id hash."""
        raw = cast(bytes | None, await self._redis.hget(self._keys.commands(game_id), command_id))
        if raw is None:
            return None
        digest, first, last = raw.decode().rsplit(":", 2)
        return digest, int(first), int(last)

    async def version(self, game_id: str) -> int:
        """HGET of the version field."""
        raw = await self._redis.hget(self._keys.meta(game_id), "version")
        return int(raw or 0)

    async def meta(self, game_id: str) -> dict[str, str] | None:
        """The metadata hash decoded, or None when the game does not exist."""
        raw = cast(dict[bytes, bytes], await self._redis.hgetall(self._keys.meta(game_id)))
        if not raw:
            return None
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def set_meta_if_absent(self, game_id: str, field: str, value: str) -> bool:
        """HSETNX on the metadata hash, if it exists (checked and set in one script)."""
        return (await self.claim_meta(game_id, field, value)).claimed

    async def claim_meta(
        self, game_id: str, field: str, value: str, *, unless: tuple[str, str] | None = None
    ) -> MetaClaim:
        """HSETNX on the metadata hash, if it exists and its ``unless`` field does not hold that value, and
        HGETALL after it, in one script."""
        guard, guarded = unless or ("", "")
        reply = await self._claim(keys=[self._keys.meta(game_id)], args=[field, value, guard, guarded])
        if reply is None:
            return MetaClaim(claimed=False, meta=None)
        claimed, pairs = reply
        meta = {pairs[i].decode(): pairs[i + 1].decode() for i in range(0, len(pairs), 2)}
        return MetaClaim(claimed=bool(claimed), meta=meta)

    async def delete(self, game_id: str) -> None:
        """DEL of the game's keys, then ZREM from the indexes its metadata named."""
        meta = await self.meta(game_id) or {}
        game = meta.get("game", "")
        pipe = self._redis.pipeline(transaction=False)
        pipe.zrem(self._keys.index("all"), game_id)
        for status in ("running", "finished"):
            pipe.zrem(self._keys.index(f"status:{status}"), game_id)
            if game:
                pipe.zrem(self._keys.index(both_name(game, status)), game_id)
        if game:
            pipe.zrem(self._keys.index(f"game:{game}"), game_id)
        for key in (self._keys.log, self._keys.meta, self._keys.commands, self._keys.snapshot, self._keys.clock):
            pipe.delete(key(game_id))
        await pipe.execute()

    async def replace_meta(self, game_id: str, field: str, value: str) -> bool:
        """HSET of a field that exists (checked and set in one script, so no field is ever created)."""
        return bool(await self._replace(keys=[self._keys.meta(game_id)], args=[field, value]))

    async def save_snapshot(self, game_id: str, version: int, tag: str, blob: bytes) -> None:
        """Keep the snapshot beside the earlier ones (field ``<version>``: tag, newline, blob)."""
        await self._redis.hset(self._keys.snapshot(game_id), str(version), tag.encode() + b"\n" + blob)

    async def load_snapshot(self, game_id: str, at_most: int | None = None) -> tuple[int, str, bytes] | None:
        """The newest snapshot, or the newest at or before version ``at_most``."""
        key = self._keys.snapshot(game_id)
        versions = [int(v) for v in cast(list[bytes], await self._redis.hkeys(key))]
        usable = [v for v in versions if at_most is None or v <= at_most]
        if not usable:
            return None
        version = max(usable)
        raw = cast(bytes | None, await self._redis.hget(key, str(version)))
        if raw is None:
            return None
        tag, _, blob = raw.partition(b"\n")
        return version, tag.decode(), blob

    async def list_games(self, *, game: str, status: str, limit: int, cursor: str) -> GamePage:
        """Newest first from the one index that answers the filter (by game and status, by either, or
        all); the cursor is an offset (rank) into it, so a page costs O(log n + page), not O(n)."""
        await self._index.repair()  # games whose writer stopped between an append and the index
        if game and status:
            name = both_name(game, status)
        else:
            name = f"game:{game}" if game else f"status:{status}" if status else "all"
        offset = int(cursor or 0)
        ids = cast(list[bytes], await self._redis.zrevrange(self._keys.index(name), offset, offset + limit))
        more = len(ids) > limit
        page = ids[:limit]
        pipe = self._redis.pipeline(transaction=False)
        for game_id in page:
            pipe.hgetall(self._keys.meta(game_id.decode()))
        metas = cast(list[dict[bytes, bytes]], await pipe.execute())
        games = [
            {"game_id": gid.decode(), **{k.decode(): v.decode() for k, v in m.items()}}
            for gid, m in zip(page, metas, strict=True)
            if m
        ]
        return GamePage(games=games, next_cursor=str(offset + limit) if more else "")

    async def count_games(self, status: str) -> int:
        """How many games have ``status`` (one ZCARD of its index)."""
        return int(await self._redis.zcard(self._keys.index(f"status:{status}")))

    async def close(self) -> None:
        """Stop the tail readers (the client belongs to whoever opened it)."""
        await self._hub.close()
