"""The bot interface: a bot sees a seat's view, with the seat's legal commands, and returns one of them."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from parlour.v1 import game_pb2

__all__ = ["Bot", "RandomBot"]


class Bot(ABC):
    """A player program. Implement :meth:`choose`; the SDK handles connections, turns and retries."""

    #: Shown as the player's name when the bot claims a seat.
    name: str = "bot"

    def __init__(self, seed: int | str | None = None) -> None:
        """``seed`` seeds ``self.random``, the bot's own random source, so games can be repeated."""
        self.random = random.Random(seed)

    @abstractmethod
    def choose(self, view: game_pb2.GameView) -> game_pb2.Command:
        """Return one command from ``view.legal_commands`` (never empty when this is called).

        ``view`` is what the bot's seat may see: the board (``view.WhichOneof("board")`` names the game),
        the seats that must act, and the legal commands. A command not in that list is rejected.
        """


class RandomBot(Bot):
    """Plays a uniformly random legal command; seeded, so a game of random bots can be repeated."""

    name = "random"

    def choose(self, view: game_pb2.GameView) -> game_pb2.Command:
        """A random legal command."""
        return self.random.choice(list(view.legal_commands))
