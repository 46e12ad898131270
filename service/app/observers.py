"""Observers of games: components (clocks, tournaments) that react when a game changes in this process."""

from __future__ import annotations

from typing import Any, Protocol

from engines.contract import AnyGame

__all__ = ["GameObserver"]


class GameObserver(Protocol):
    """Told after a game is created, when its last seat is claimed, and after each command is applied
    through this process (so the same version may be reported more than once).

    ``state`` is the engine state at ``version``. Observers must not raise for a game they do not care
    about, and must not block: they run on the request's path, after the events are stored. Changes made
    through other processes are not reported here; observers that must see them read the store.
    """

    async def game_changed(self, game_id: str, game: AnyGame, state: Any, version: int) -> None:
        """React to the game being at ``version``."""
        ...
