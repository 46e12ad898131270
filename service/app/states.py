"""Engine states of live games in this process: loaded from snapshot plus later events, kept current.

A process keeps recently used games' states in a bounded LRU cache. Loading a game costs one snapshot read
plus the events after it, so a long game loads about as fast as a short one. Snapshots are pickled engine
states tagged with the game's name and rules version; a snapshot with another tag is ignored (the log is
folded from the start), so a snapshot can never change what a game is.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from engines.contract import AnyGame
from service.store.port import EventStore, StoredEvent

__all__ = ["LoadedGame", "StateCache"]

_SNAPSHOT_FORMAT = "pickle-1"
_PAGE = 1000


@dataclass
class LoadedGame:
    """A game's state at ``version``."""

    game: AnyGame
    state: Any
    version: int


class StateCache:
    """Engine states by game id, current to the version last seen in the store."""

    def __init__(self, store: EventStore, *, capacity: int = 10_000, snapshot_every: int = 100) -> None:
        """``snapshot_every``: a snapshot is written each time the log passes a multiple of it."""
        self._store = store
        self._capacity = capacity
        self._snapshot_every = snapshot_every
        self._games: OrderedDict[str, LoadedGame] = OrderedDict()

    def _tag(self, game: AnyGame) -> str:
        return f"{game.spec.name}:{game.spec.rules_version}:{_SNAPSHOT_FORMAT}"

    async def get(self, game_id: str, game: AnyGame, at_least: int = 0) -> LoadedGame:
        """The game's state, folded up to at least version ``at_least`` (and all events read)."""
        loaded = self._games.get(game_id)
        if loaded is None:
            loaded = await self._load(game_id, game)
            self._remember(game_id, loaded)
        else:
            self._games.move_to_end(game_id)
        if loaded.version < at_least:
            await self.catch_up(game_id, loaded)
        return loaded

    async def _load(self, game_id: str, game: AnyGame) -> LoadedGame:
        loaded = await self._from_snapshot(game_id, game, None)
        await self.catch_up(game_id, loaded)
        return loaded

    async def _from_snapshot(self, game_id: str, game: AnyGame, at_most: int | None) -> LoadedGame:
        loaded = LoadedGame(game=game, state=None, version=0)
        snapshot = await self._store.load_snapshot(game_id, at_most)
        if snapshot is not None and snapshot[1] == self._tag(game):
            loaded.version, loaded.state = snapshot[0], pickle.loads(snapshot[2])  # our own data, from our Redis
        return loaded

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
        """Fold every stored event after ``loaded.version`` into ``loaded``."""
        while True:
            batch = await self._store.read(game_id, loaded.version + 1, _PAGE)
            self.apply(loaded, batch)
            if len(batch) < _PAGE:
                return

    def apply(self, loaded: LoadedGame, stored: list[StoredEvent]) -> None:
        """Fold stored events into ``loaded``, skipping any it already holds (a concurrent request may have
        advanced it while this batch was being read)."""
        game = loaded.game
        for event in stored:
            if event.version <= loaded.version:
                continue
            loaded.state = game.evolve(loaded.state, game.event_type.FromString(event.data))
            loaded.version = event.version

    def _remember(self, game_id: str, loaded: LoadedGame) -> None:
        self._games[game_id] = loaded
        while len(self._games) > self._capacity:
            self._games.popitem(last=False)

    def forget(self, game_id: str) -> None:
        """Drop a game from the cache (it is reloaded from the store when next needed)."""
        self._games.pop(game_id, None)

    async def advance(self, game_id: str, loaded: LoadedGame, state: Any, version: int) -> None:
        """Record that the game reached ``state`` at ``version``; snapshot when a multiple is passed."""
        previous = loaded.version
        loaded.state, loaded.version = state, version
        self._remember(game_id, loaded)
        if version // self._snapshot_every > previous // self._snapshot_every:
            blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
            await self._store.save_snapshot(game_id, version, self._tag(loaded.game), blob)

    def __len__(self) -> int:
        return len(self._games)
