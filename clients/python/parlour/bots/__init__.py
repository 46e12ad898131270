"""Reference bots. ``make_bot(strategy, game, seed)`` builds one by name."""

from __future__ import annotations

from parlour.bots.base import Bot, RandomBot
from parlour.bots.libertalia import LibertaliaGreedyBot
from parlour.bots.oldmen import OldmenGreedyBot
from parlour.bots.verraeter import VerraeterGreedyBot

__all__ = ["STRATEGIES", "Bot", "RandomBot", "make_bot"]

#: Strategy name -> {game name or "*" for any game -> bot class}.
STRATEGIES: dict[str, dict[str, type[Bot]]] = {
    "random": {"*": RandomBot},
    "greedy": {"verraeter": VerraeterGreedyBot, "libertalia": LibertaliaGreedyBot, "oldmen": OldmenGreedyBot},
}


def make_bot(strategy: str, game: str, seed: int | str | None = None) -> Bot:
    """A bot playing ``game`` with ``strategy``; raises ValueError naming the strategies that exist."""
    by_game = STRATEGIES.get(strategy, {})
    cls = by_game.get(game) or by_game.get("*")
    if cls is None:
        known = sorted(s for s, games in STRATEGIES.items() if game in games or "*" in games)
        raise ValueError(f"no {strategy!r} bot plays {game}; strategies for {game}: {', '.join(known)}")
    return cls(seed)
