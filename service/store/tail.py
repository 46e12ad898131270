"""Live tails of game logs: one Redis reader per process for every game it tails (one XREAD over all
their streams, so thousands of watched games hold one connection, not one each), fanned out to every
local watcher of each game.

A watcher first reads the history from its version, then takes live events from the reader. Versions are
dense, so a watcher detects any hole (it joined while the reader was between reads, or it fell behind and
its buffer was dropped) and fills it from the log: no gap, no duplicate, whatever the timing.

The reader hands new events to a game's watchers a slice at a time and wakes the next slice once the
watchers of this one have sent theirs (their consumers' writes completed) or after a short wait, and
once no command is being applied (``give_way``): the event loop that serves commands then never holds
more than a slice of stream writes and their completions, so commands keep their pace while an event
reaches thousands of watchers (the fan-out takes longer instead). A game with no more than ``_AT_ONCE``
watchers gets its events at once. A watcher still busy with earlier events is not waited for; it
only grows its own buffer.

On a Redis Cluster one XREAD may only name keys of one slot (a game's keys share one), so the streams are
read in one XREAD per slot, concurrently. While Redis is away the reads are tried again for up to
``OUTAGE_S`` seconds (the hub's ``outage_s``) and go on from where they were; after that the watchers'
streams end as the store being unavailable (their clients resume from their last version).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service import metrics
from service.store.connection import unavailable as is_unavailable
from service.store.entries import Entries, parse_entry
from service.store.failures import StoreUnavailableError
from service.store.keys import Keys
from service.store.port import StoredEvent

__all__ = ["OUTAGE_S", "TailHub"]

Reader = Callable[[str, int, int], Awaitable[list[StoredEvent]]]
_PAGE = 500
_BUFFER = 1000  # live events buffered per watcher before it is switched to reading the log itself
_BLOCK_MS = 200  # how long a game that starts being tailed may wait to join the shared read
#: How long the reads wait for Redis to come back before ending the watchers' streams (the default).
OUTAGE_S = 15.0
_RETRY_S = 0.2
_SLICE = 32  # watchers woken together (see the module docstring)
_AT_ONCE = 128  # a game with no more watchers than this gets its events at once, without slices
_SLICE_WAIT_S = 0.02  # how long the reader waits for a slice of watchers to take their events


async def _no_wait() -> None:
    return None


def _said_as_unavailable(error: Exception) -> BaseException:
    """What a watcher's stream ends with after ``error``: the store being away when Redis is not reachable
    (never Redis's own message), else ``error`` itself."""
    if not is_unavailable(error):
        return error
    failure = StoreUnavailableError()
    failure.__cause__ = error
    return failure


class _Slice:
    """Watchers handed new events together; done once each of them has taken them (or left)."""

    def __init__(self) -> None:
        self.pending = 0
        self.done = asyncio.get_running_loop().create_future()

    def taken(self) -> None:
        """One of the watchers has taken (and its consumer has sent) everything it was handed."""
        self.pending -= 1
        if self.pending <= 0 and not self.done.done():
            self.done.set_result(None)

    async def wait(self) -> None:
        """Until every watcher of the slice took its events, or ``_SLICE_WAIT_S``."""
        if self.pending > 0:
            await asyncio.wait({self.done}, timeout=_SLICE_WAIT_S)


class _Watcher:
    """One watcher's buffer of live events."""

    def __init__(self) -> None:
        self.items: deque[StoredEvent] = deque()
        self.lagging = False
        self.failure: BaseException | None = None
        self.wake = asyncio.Event()
        #: Whether it holds events its consumer has not taken yet.
        self.busy = False
        #: The slice waiting for it to take the events it was handed (None: nobody waits).
        self.slice: _Slice | None = None

    def push_all(self, events: list[StoredEvent], handed: _Slice | None) -> None:
        """Buffer ``events`` and wake the watcher; past ``_BUFFER`` events the buffer is dropped and the
        watcher reads what it missed from the log. ``handed`` (if any) waits for the watcher only if it was
        idle: a watcher still busy with earlier events is not waited for (and its earlier slice stops
        waiting)."""
        if handed is not None and not self.busy:
            self.slice = handed
            handed.pending += 1
        elif handed is not None and self.slice is not None:
            self.slice.taken()
            self.slice = None
        self.busy = True
        if len(self.items) + len(events) > _BUFFER:
            self.items.clear()
            self.lagging = True
        else:
            self.items.extend(events)
        self.wake.set()

    def took(self) -> None:
        """Its consumer asks for more: once nothing is buffered, it has taken all it was handed."""
        if self.items:
            return
        self.busy = False
        if self.slice is not None:
            self.slice.taken()
            self.slice = None

    def left(self) -> None:
        """It is gone: nobody waits for it any more."""
        self.items.clear()
        self.took()


class _Cursor:
    """The next version a watcher expects."""

    def __init__(self, start: int) -> None:
        self.next = start

    def passed(self, event: StoredEvent) -> StoredEvent:
        """Move past ``event`` and return it."""
        self.next = event.version + 1
        return event


class _GameReader:
    """One game this process tails: its stream key, the id of the last entry read, its watchers, and the
    events its own fan-out task has yet to hand out."""

    def __init__(self, key: str, give_way: Callable[[], Awaitable[None]]) -> None:
        self.watchers: set[_Watcher] = set()
        self.key = key
        #: None until the stream's end is known (then entries after it are read).
        self.last: bytes | str | None = None
        self._give_way = give_way
        self._backlog: list[StoredEvent] = []
        self._fanout: asyncio.Task[None] | None = None

    def deliver(self, entries: Entries) -> None:
        """Hand entries read from the stream to every watcher: at once to a game with no more than
        ``_AT_ONCE`` watchers (a table of bots, a game with a few spectators), else through the game's own
        fan-out task, slice by slice (see the module docstring), while the shared read goes on for the
        other games."""
        events = [parse_entry(entry_id, fields) for entry_id, fields in entries]
        for event in events:
            metrics.tail_delivered(event.recorded_at_ms)
        if entries:
            self.last = entries[-1][0]
        if self._fanout is None and len(self.watchers) <= _AT_ONCE:
            for watcher in list(self.watchers):
                watcher.push_all(events, None)
            return
        self._backlog.extend(events)
        if self._fanout is None:
            self._fanout = asyncio.create_task(self._fan_out())

    async def _fan_out(self) -> None:
        try:
            while self._backlog:
                events, self._backlog = self._backlog, []
                await self._in_slices(events)
        finally:
            self._fanout = None

    async def _in_slices(self, events: list[StoredEvent]) -> None:
        """Wake ``_SLICE`` watchers at a time: the next slice once the watchers of this one have sent what
        they were handed (or after ``_SLICE_WAIT_S``) and no command is being applied (``give_way``)."""
        watchers = list(self.watchers)
        handed: _Slice | None = None
        for start in range(0, len(watchers), _SLICE):
            if handed is not None:
                await handed.wait()
                await self._give_way()
            handed = _Slice()
            for watcher in watchers[start : start + _SLICE]:
                watcher.push_all(events, handed)

    def stop(self) -> None:
        """Stop handing out events (the hub is closing)."""
        if self._fanout is not None:
            self._fanout.cancel()

    def fail(self, error: BaseException) -> None:
        """End every watcher's stream with ``error``."""
        for watcher in list(self.watchers):
            watcher.failure = error
            watcher.wake.set()


def _by_command(events: list[StoredEvent], *, whole: bool) -> tuple[list[list[StoredEvent]], list[StoredEvent]]:
    """``events`` (consecutive versions) cut into the events of each command (a command's first event
    carries it; the setup's carry none), and, unless ``whole``, the last command kept back as it may go on
    in events not read yet: (commands, kept back)."""
    commands: list[list[StoredEvent]] = []
    for event in events:
        if not commands or event.command:
            commands.append([event])
        else:
            commands[-1].append(event)
    if whole or not commands:
        return commands, []
    return commands[:-1], commands[-1]


class TailHub:
    """Shares one Redis read among all of this process's watchers of every game."""

    def __init__(
        self,
        client: aioredis.Redis,
        keys: Keys,
        read: Reader,
        give_way: Callable[[], Awaitable[None]] | None = None,
        *,
        outage_s: float = OUTAGE_S,
    ) -> None:
        """``give_way`` is awaited before each slice of watchers is woken (to let commands go first).
        ``outage_s``: how long the reads wait for an unreachable Redis before the streams end."""
        self._give_way = give_way or _no_wait
        self._outage_s = outage_s
        self._redis = client
        self._keys = keys
        self._read = read
        self._readers: dict[str, _GameReader] = {}
        self._task: asyncio.Task[None] | None = None

    async def tail(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        """Events from ``from_version`` on, history then live; ends after an event marked final.

        No nested generator on the live path: each live event costs one resumption here (thousands of
        watchers of one game pay it once each per event)."""
        watcher = await self._join(game_id)
        cursor = _Cursor(max(from_version, 1))
        metrics.WATCHERS.inc()
        try:
            async for event in self._history(game_id, cursor.next):
                yield cursor.passed(event)
                if event.final:
                    return
            while True:
                for event in await self._next_live(game_id, watcher, cursor.next):
                    yield cursor.passed(event)
                    if event.final:
                        return
        finally:
            metrics.WATCHERS.dec()
            self._leave(game_id, watcher)

    async def tail_commands(self, game_id: str, from_version: int) -> AsyncIterator[list[StoredEvent]]:
        """As :meth:`tail`, but the events of each command (and of the setup) together, one list each, in
        order: a command's events are appended at once, so a live batch ends at a command's end; a page of
        history that may stop inside a command keeps that command back until the next page."""
        watcher = await self._join(game_id)
        cursor = _Cursor(max(from_version, 1))
        held: list[StoredEvent] = []
        metrics.WATCHERS.inc()
        try:
            while True:
                page = await self._read(game_id, cursor.next, _PAGE)
                if page:
                    cursor.passed(page[-1])
                commands, held = _by_command(held + page, whole=len(page) < _PAGE)
                for command in commands:
                    yield command
                    if command[-1].final:
                        return
                if len(page) < _PAGE:
                    break
            while True:
                live = await self._next_live(game_id, watcher, cursor.next)
                if live:
                    cursor.passed(live[-1])
                commands, _ = _by_command(live, whole=True)
                for command in commands:
                    yield command
                    if command[-1].final:
                        return
        finally:
            metrics.WATCHERS.dec()
            self._leave(game_id, watcher)

    async def _next_live(self, game_id: str, watcher: _Watcher, expected: int) -> list[StoredEvent]:
        """The next live events from version ``expected`` on, in order, after waiting for some: what the
        buffer holds, with any hole in it read from the log (or, after the buffer overflowed and was
        dropped, everything from the log)."""
        watcher.took()
        await watcher.wake.wait()
        watcher.wake.clear()
        if watcher.failure is not None:
            raise watcher.failure
        if watcher.lagging:
            watcher.lagging = False
            watcher.items.clear()
            return [event async for event in self._history(game_id, expected)]
        batch: list[StoredEvent] = []
        while watcher.items:
            event = watcher.items.popleft()
            if event.version < expected:
                continue
            if event.version > expected:  # a hole (joined between reads): fill it from the log
                batch += [missing async for missing in self._history(game_id, expected, until=event.version - 1)]
            batch.append(event)
            expected = event.version + 1
        return batch

    async def _history(self, game_id: str, start: int, until: int | None = None) -> AsyncIterator[StoredEvent]:
        while True:
            batch = await self._read(game_id, start, _PAGE)
            for event in batch:
                if until is not None and event.version > until:
                    return
                yield event
                start = event.version + 1
            if len(batch) < _PAGE:
                return

    async def _join(self, game_id: str) -> _Watcher:
        """Register a watcher before it reads the history, so every later event reaches it live. A new
        game is read from the stream's end as it was before that history read."""
        watcher = _Watcher()
        reader = self._readers.get(game_id)
        if reader is not None:
            reader.watchers.add(watcher)
            return watcher
        reader = _GameReader(self._keys.log(game_id), self._give_way)
        reader.watchers.add(watcher)
        self._readers[game_id] = reader
        try:
            latest = cast(Entries, await self._redis.xrevrange(reader.key, count=1))
        except BaseException as error:
            # Without its stream's end the game is never read live: forget it, so the next watcher starts
            # afresh, and end the streams of the watchers that joined it meanwhile (they resume).
            if self._readers.get(game_id) is reader:
                del self._readers[game_id]
            reader.watchers.discard(watcher)
            reader.fail(_said_as_unavailable(error) if isinstance(error, Exception) else StoreUnavailableError())
            raise
        reader.last = latest[0][0] if latest else "0-0"
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._follow())
        return watcher

    async def _follow(self) -> None:
        """Read every tailed game's new entries with blocking XREADs over their streams, for as long as
        there are games to tail (a game joining during a read is included in the next one, at most
        _BLOCK_MS later, from where its history read began: nothing is missed). A read that fails while
        Redis is away is tried again (see the module docstring); any other failure ends every watcher's
        stream with the error."""
        away_since: float | None = None
        try:
            while self._readers:
                readers = {r.key: r for r in list(self._readers.values()) if r.last is not None}
                if not readers:
                    await asyncio.sleep(_BLOCK_MS / 1000)
                    continue
                try:
                    responses = await asyncio.gather(*(self._xread(group) for group in self._groups(readers)))
                except Exception as error:
                    if not is_unavailable(error):
                        raise
                    away_since = away_since or time.monotonic()
                    if time.monotonic() - away_since > self._outage_s:
                        raise
                    await asyncio.sleep(_RETRY_S)
                    continue
                away_since = None
                for response in responses:
                    for stream, entries in response or []:
                        reader = readers.get(stream.decode())
                        if reader is not None:
                            reader.deliver(entries)
        except Exception as error:
            # The games tailed so far are forgotten with their watchers' streams: a watcher that joins one
            # of them later (its client resuming) gets a reader and a shared read of its own, even while a
            # failed watcher is still there (its consumer has not asked for more yet).
            failed, self._readers = list(self._readers.values()), {}
            failure = _said_as_unavailable(error)
            for game in failed:
                game.fail(failure)

    def _groups(self, readers: dict[str, _GameReader]) -> list[dict[str, bytes | str]]:
        """The streams to read, in groups one XREAD may name: all of them, or one group per cluster slot."""
        streams = {key: reader.last for key, reader in readers.items() if reader.last is not None}
        if not isinstance(self._redis, RedisCluster):
            return [streams]
        by_slot: dict[int, dict[str, bytes | str]] = defaultdict(dict)
        for key, last in streams.items():
            by_slot[self._redis.keyslot(key)][key] = last
        return list(by_slot.values())

    async def _xread(self, streams: dict[str, bytes | str]) -> list[tuple[bytes, Entries]]:
        reply = await self._redis.xread(streams, block=_BLOCK_MS, count=_PAGE)  # type: ignore[arg-type]  # redis-py's stubs want a dict of str to str ids; bytes ids are what XREAD gave
        return cast(list[tuple[bytes, Entries]], reply)

    def _leave(self, game_id: str, watcher: _Watcher) -> None:
        watcher.left()
        reader = self._readers.get(game_id)
        if reader is None:
            return
        reader.watchers.discard(watcher)
        if not reader.watchers:
            # The shared read leaves the game out from its next XREAD: cancelling a command in flight
            # could hand a connection with an unread reply back to the pool.
            del self._readers[game_id]

    def readers(self) -> int:
        """How many games this process is reading live (for tests and metrics)."""
        return len(self._readers)

    async def close(self) -> None:
        """Stop the shared read."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        for reader in self._readers.values():
            reader.stop()
        self._readers.clear()
