"""Which games the page tests play, from the registry: every registered game, with its own board where
``clients/web/games/<game>.js`` exists (otherwise the page shows the view's fields)."""

from __future__ import annotations

from pathlib import Path

from engines.registry import game_names
from parlour.bots import STRATEGIES

__all__ = ["GAMES", "WEB", "has_board", "house_strategy"]

#: The page's files.
WEB = Path(__file__).resolve().parents[2] / "clients" / "web"

#: Every registered game, in registry order.
GAMES = list(game_names())


def has_board(game: str) -> bool:
    """Whether the page has a module of its own for ``game`` (its board, its sentences, its command words)."""
    return (WEB / "games" / f"{game}.js").is_file()


def house_strategy(game: str) -> str:
    """The strongest house bot the server has for ``game``: greedy where there is one, else random."""
    return "greedy" if game in STRATEGIES.get("greedy", {}) else "random"
