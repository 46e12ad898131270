"""Observers of games: components (the clock keeper) that react when a game changes in this process."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engines.contract import AnyGame
from service.app.records import GameRecord
from service.store.port import StoredEvent

__all__ = ["GameChange", "GameObserver", "Observers"]


@dataclass(frozen=True)
class GameChange:
    """A game as it stands after a change made through this process, handed over in memory.

    ``game`` is the engine of its rules version, ``state`` the engine state at ``version``; ``events`` are
    the events this change stored, in order, exactly as the store holds them (empty when nothing was
    stored: a seat claim, or a game reported again by the clock sweep). ``record`` is the game's record as
    this process knew it when the change was made.
    """

    game_id: str
    record: GameRecord
    game: AnyGame
    state: Any
    version: int
    events: tuple[StoredEvent, ...] = ()


class GameObserver(Protocol):
    """Told after a game is created, when its last seat is claimed, and after each command is applied
    through this process (so the same version may be reported more than once).

    Observers must not raise for a game they do not care about, and must not block: they run on the
    request's path, after the events are stored. Changes made through other processes are not reported
    here; observers that must see them read the store.
    """

    async def game_changed(self, change: GameChange) -> None:
        """React to the game being at ``change.version``."""
        ...


class Observers:
    """The observers of this process's games, told in the order they were added."""

    def __init__(self, observers: Sequence[GameObserver] = ()) -> None:
        self._observers = list(observers)

    def add(self, observer: GameObserver) -> None:
        """Also tell ``observer`` from now on."""
        self._observers.append(observer)

    def __bool__(self) -> bool:
        """Whether anyone listens (else a change need not be built)."""
        return bool(self._observers)

    async def tell(self, change: GameChange) -> None:
        """Tell every observer of ``change``."""
        for observer in self._observers:
            await observer.game_changed(change)
