"""Reference bots. ``make_bot(strategy, game, seed)`` builds one by name.

The random bot plays every game. A game's own bots live in ``parlour/bots/<game>.py`` (the module named
like the game) and are listed there in ``BOTS`` (strategy name -> bot class); they are found here by
looking through this package (modules named ``_*`` are helpers), so adding one changes no other file.
Each game with a ``greedy`` bot also has ``half-greedy``: greedy half the time, random the other half.
"""

from __future__ import annotations

import importlib
import pkgutil

from parlour.bots.base import Bot, HalfRandomBot, RandomBot

__all__ = ["STRATEGIES", "Bot", "RandomBot", "make_bot"]


def _strategies() -> dict[str, dict[str, type[Bot]]]:
    found: dict[str, dict[str, type[Bot]]] = {"random": {"*": RandomBot}}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name == "base" or module.name.startswith("_") or module.ispkg:
            continue
        bots: dict[str, type[Bot]] = getattr(importlib.import_module(f"{__name__}.{module.name}"), "BOTS", {})
        for strategy, cls in bots.items():
            found.setdefault(strategy, {})[module.name] = cls
    for game, cls in list(found.get("greedy", {}).items()):
        found.setdefault("half-greedy", {})[game] = HalfRandomBot.of(cls)
    return found


#: Strategy name -> {game name or "*" for any game -> bot class}.
STRATEGIES: dict[str, dict[str, type[Bot]]] = _strategies()


def make_bot(strategy: str, game: str, seed: int | str | None = None) -> Bot:
    """A bot playing ``game`` with ``strategy``; raises ValueError naming the strategies that exist."""
    by_game = STRATEGIES.get(strategy, {})
    cls = by_game.get(game) or by_game.get("*")
    if cls is None:
        known = sorted(s for s, games in STRATEGIES.items() if game in games or "*" in games)
        raise ValueError(f"no {strategy!r} bot plays {game}; strategies for {game}: {', '.join(known)}")
    return cls(seed)
