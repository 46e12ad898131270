"""Engine states of live games in this process: loaded from snapshot plus later events, kept current.

A process keeps recently used games' states in a bounded LRU cache. Loading a game costs one snapshot read
plus the events after it, so a long game loads about as fast as a short one. Snapshots are engine states
in the explicit encoding of :mod:`engines.snapshot` (fields by name, never class paths), tagged with the
game's name, rules version, the encoding's format and the state class's shape fingerprint. A snapshot with
another tag, or one that cannot be decoded, is ignored and the log is folded from the start instead (and
said once in the log), so a snapshot can never change what a game is, nor stop a game from loading after
an upgrade.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from engines.contract import AnyGame, fold
from engines.snapshot import FORMAT, SnapshotError, StateCodec
from service.store.port import SnapshottedLog, StoredEvent, event_digest

__all__ = ["LoadedGame", "Reached", "StateCache", "Work", "snapshot_tag"]

_PAGE = 1000
#: Games whose unusable snapshot this process has already reported (bounded; oldest forgotten first).
_REPORTED_CAPACITY = 10_000

log = structlog.get_logger("parlour.states")


def snapshot_tag(game: AnyGame, codec: StateCodec) -> str:
    """The tag a snapshot of ``game`` is stored with: only a snapshot with this exact tag is decoded."""
    return f"{game.spec.name}:{game.spec.rules_version}:{FORMAT}:{codec.fingerprint}"


@dataclass
class LoadedGame:
    """A game's state at ``version``."""

    game: AnyGame
    state: Any
    version: int
    #: event_digest of the event at ``version`` ("" until read): appends check the log still holds it.
    last_digest: str = ""
    #: When the event at ``version`` was stored (ms since the epoch; 0 until read): a game without a clock
    #: measures a seat's think time from it.
    last_ms: int = 0


@dataclass(frozen=True)
class Reached:
    """Where a command took a game: its state at ``version``, the payload of that version's event (``b""``:
    none is known) and when it was stored (ms since the epoch)."""

    state: Any
    version: int
    last: bytes
    recorded_ms: int


@dataclass
class Work:
    """One command's unit of work on a game (see :meth:`StateCache.work`): the latest state to decide on,
    and, once the command's events are stored, where they took the game."""

    loaded: LoadedGame
    reached: Reached | None = None


class StateCache:
    """Engine states by game id, current to the version last seen in the store."""

    def __init__(self, store: SnapshottedLog, *, capacity: int = 10_000, snapshot_every: int = 100) -> None:
        """``snapshot_every``: a snapshot is written each time the log passes a multiple of it."""
        self._store = store
        self._capacity = capacity
        self._snapshot_every = snapshot_every
        self._games: OrderedDict[str, LoadedGame] = OrderedDict()
        self._codecs: dict[str, StateCodec] = {}
        self._reported: OrderedDict[str, None] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    def _codec(self, game: AnyGame) -> StateCodec:
        """The codec of ``game``'s states (one per rules version: a decoded state gets that version's rules)."""
        codec = self._codecs.get(game.spec.rules_version)
        if codec is None:
            codec = self._codecs[game.spec.rules_version] = StateCodec.of_game(game)
        return codec

    @contextlib.asynccontextmanager
    async def work(self, game_id: str, game: AnyGame) -> AsyncIterator[Work]:
        """A command's unit of work on the game: under this process's lock of the game (one command of a game
        at a time here; other servers are kept out by the append's expected version), the latest state
        known here. A block that sets :attr:`Work.reached` and ends without an error advances the cached
        state there (see :meth:`advance`)."""
        async with self._lock(game_id):
            work = Work(await self.get(game_id, game))
            yield work
            if work.reached is not None:
                reached = work.reached
                await self.advance(
                    game_id, work.loaded, reached.state, reached.version, reached.last, recorded_ms=reached.recorded_ms
                )

    def _lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            if len(self._locks) > self._capacity:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    async def get(self, game_id: str, game: AnyGame, at_least: int = 0) -> LoadedGame:
        """The game's state, folded up to at least version ``at_least`` (and all events read). A cached
        state beyond ``at_least`` (the caller's reading of the log's version) is checked against the log
        first: the log may have lost it."""
        loaded = self._games.get(game_id)
        if loaded is None:
            loaded = await self._load(game_id, game)
            self._remember(game_id, loaded)
        else:
            self._games.move_to_end(game_id)
        if loaded.version < at_least or 0 < at_least < loaded.version:  # behind, or ahead of the log
            await self.catch_up(game_id, loaded)
        return loaded

    async def _load(self, game_id: str, game: AnyGame) -> LoadedGame:
        loaded = await self._from_snapshot(game_id, game, None)
        await self.catch_up(game_id, loaded)
        return loaded

    async def _from_snapshot(self, game_id: str, game: AnyGame, at_most: int | None) -> LoadedGame:
        loaded = LoadedGame(game=game, state=None, version=0)
        snapshot = await self._store.load_snapshot(game_id, at_most)
        if snapshot is None:
            return loaded
        version, tag, blob = snapshot
        codec = self._codec(game)
        if tag != snapshot_tag(game, codec):
            self._report(game_id, version, "it was written by another version of the server or the rules")
            return loaded
        try:
            loaded.state = codec.decode(blob)
        except SnapshotError as error:
            self._report(game_id, version, str(error))
            return loaded
        loaded.version = version
        return loaded

    def _report(self, game_id: str, version: int, reason: str) -> None:
        """Say once per game (in this process) that its snapshot was not used, and why."""
        if game_id in self._reported:
            return
        self._reported[game_id] = None
        while len(self._reported) > _REPORTED_CAPACITY:
            self._reported.popitem(last=False)
        log.warning("snapshot not used; folding the log", game_id=game_id, snapshot_version=version, reason=reason)

    async def at(self, game_id: str, game: AnyGame, version: int) -> LoadedGame:
        """The game's state just after event ``version`` (not cached): the nearest snapshot at or before
        it, plus the events between."""
        loaded = await self._from_snapshot(game_id, game, version)
        while loaded.version < version:
            batch = await self._store.read(game_id, loaded.version + 1, min(_PAGE, version - loaded.version))
            if not batch:
                break
            self.apply(loaded, batch)
        return loaded

    async def catch_up(self, game_id: str, loaded: LoadedGame) -> None:
        """Fold every stored event after ``loaded.version`` into ``loaded``. The log must still hold the
        event ``loaded`` ends with; if it does not (Redis lost acknowledged writes, and maybe others wrote
        since), ``loaded`` is reloaded from the store: a cached state the log no longer holds is never
        decided on. (A state just loaded from a snapshot has no digest yet: it came from the log a moment
        ago, so the event at its version is read with the later ones and gives it its digest and time.)

        Other requests may use ``loaded`` meanwhile (and advance it): the check is made against the event
        ``loaded`` ended with when this read began, and a reload replaces the state, version and digest at
        once, so no one ever sees a half-loaded state."""
        version, digest = loaded.version, loaded.last_digest
        if version > 0:
            batch = await self._store.read(game_id, version, _PAGE)
            if digest and not self._holds(version, digest, batch):
                log.warning("cached state no longer in the log; reloading", game_id=game_id, version=version)
                await self._reload(game_id, loaded)
                return
            self.apply(loaded, batch)
            if len(batch) < _PAGE:
                return
        while True:
            batch = await self._store.read(game_id, loaded.version + 1, _PAGE)
            self.apply(loaded, batch)
            if len(batch) < _PAGE:
                return

    @staticmethod
    def _holds(version: int, digest: str, batch: list[StoredEvent]) -> bool:
        """Whether ``batch`` (read from ``version`` on) starts with the event of that version and digest."""
        if not batch or batch[0].version != version:
            return False
        return event_digest(batch[0].data) == digest

    async def _reload(self, game_id: str, loaded: LoadedGame) -> None:
        """Load the game afresh from the store, then put the result into ``loaded`` in one step."""
        fresh = await self._from_snapshot(game_id, loaded.game, None)
        while True:
            batch = await self._store.read(game_id, fresh.version + 1, _PAGE)
            self.apply(fresh, batch)
            if len(batch) < _PAGE:
                break
        if fresh.version > 0 and not fresh.last_digest:
            self.apply(fresh, await self._store.read(game_id, fresh.version, 1))
        loaded.state, loaded.version, loaded.last_digest, loaded.last_ms = (
            fresh.state,
            fresh.version,
            fresh.last_digest,
            fresh.last_ms,
        )

    def apply(self, loaded: LoadedGame, stored: list[StoredEvent]) -> None:
        """Fold stored events into ``loaded``, skipping any it already holds (a concurrent request may have
        advanced it while this batch was being read). The event at ``loaded.version`` itself gives a state
        that has no digest yet (just loaded from a snapshot) its digest and time."""
        game = loaded.game
        newest: StoredEvent | None = None
        for event in stored:
            if event.version < loaded.version:
                continue
            if event.version == loaded.version:
                if not loaded.last_digest:
                    newest = event
                continue
            loaded.state = game.evolve(loaded.state, game.event_type.FromString(event.data))
            loaded.version = event.version
            newest = event
        if newest is not None:
            loaded.last_digest, loaded.last_ms = event_digest(newest.data), newest.recorded_at_ms

    def _remember(self, game_id: str, loaded: LoadedGame) -> None:
        self._games[game_id] = loaded
        while len(self._games) > self._capacity:
            self._games.popitem(last=False)

    def created(
        self, game_id: str, game: AnyGame, setup: Sequence[bytes], recorded_ms: int, state: Any = None
    ) -> LoadedGame:
        """Cache a game this process just created: the state its ``setup`` events (as stored, at versions
        1 to ``len(setup)``, at ``recorded_ms``) lead to, ``state`` when the caller folded them already,
        else folded here rather than read back from the store."""
        if state is None:
            state = fold(game, (game.event_type.FromString(data) for data in setup))
        loaded = LoadedGame(game, state, len(setup), event_digest(setup[-1]) if setup else "", recorded_ms)
        self._remember(game_id, loaded)
        return loaded

    def forget(self, game_id: str) -> None:
        """Drop a game from the cache (it is reloaded from the store when next needed)."""
        self._games.pop(game_id, None)

    async def advance(
        self, game_id: str, loaded: LoadedGame, state: Any, version: int, last: bytes = b"", *, recorded_ms: int = 0
    ) -> None:
        """Record that the game reached ``state`` at ``version`` (``last``: the payload of that version's
        event, stored at ``recorded_ms``); snapshot when a multiple is passed."""
        previous = loaded.version
        loaded.state, loaded.version = state, version
        loaded.last_digest = event_digest(last) if last else ""
        loaded.last_ms = recorded_ms
        self._remember(game_id, loaded)
        if version // self._snapshot_every > previous // self._snapshot_every:
            codec = self._codec(loaded.game)
            await self._store.save_snapshot(game_id, version, snapshot_tag(loaded.game, codec), codec.encode(state))

    def __len__(self) -> int:
        return len(self._games)
