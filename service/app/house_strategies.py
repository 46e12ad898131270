"""The built-in strategies the server can play a seat with (house bots): the SDK's reference bots.

The reference bots in ``parlour.bots`` see only a seat's GameView (the wire contract) and return one of
its legal commands; they do no I/O, so the server may run them. Which strategies exist is read from them.
"""

from __future__ import annotations

from parlour.bots import STRATEGIES, Bot, make_bot

__all__ = ["house_bot", "house_bot_strategies"]


def house_bot_strategies(game: str) -> list[str]:
    """The names of the strategies that play ``game``, sorted."""
    return sorted(name for name, games in STRATEGIES.items() if game in games or "*" in games)


def house_bot(strategy: str, game: str, seed: str) -> Bot:
    """A fresh bot of ``strategy`` for ``game`` whose own random choices come from ``seed``; ValueError if no
    such strategy plays ``game`` (checked at creation, so only for games made by another server version)."""
    return make_bot(strategy, game, seed=seed)
