"""The games this server plays, in one explicit tuple (no registration by import side effect)."""

from __future__ import annotations

from engines.contract import AnyGame
from engines.libertalia import LIBERTALIA
from engines.oldmen import OLDMEN
from engines.verraeter import VERRAETER

__all__ = ["GAMES", "game_names", "get_game"]

GAMES: tuple[AnyGame, ...] = (OLDMEN, VERRAETER, LIBERTALIA)

_BY_NAME = {game.spec.name: game for game in GAMES}


def get_game(name: str) -> AnyGame | None:
    """The game registered under ``name``, or ``None``."""
    return _BY_NAME.get(name)


def game_names() -> tuple[str, ...]:
    """Names of all registered games, in registry order."""
    return tuple(_BY_NAME)
