"""The bot interface: a bot sees a seat's view, with the seat's legal commands, and returns one of them."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from parlour.v1 import game_pb2

__all__ = ["Bot", "HalfRandomBot", "RandomBot"]


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


class HalfRandomBot(Bot):
    """Plays as a bot of its :attr:`inner` class half the time and a random legal command the other half:
    a bot between the two in strength, for ladders and tests that need three. Make one class per inner
    bot with :meth:`of` (each game with a ``greedy`` bot has ``half-greedy``, see :mod:`parlour.bots`)."""

    name = "half"
    #: The bot played half the time.
    inner: type[Bot] = RandomBot

    def __init__(self, seed: int | str | None = None) -> None:
        """``seed`` seeds the coin, the random moves and the inner bot."""
        super().__init__(seed)
        self._inner = self.inner(seed)

    @classmethod
    def of(cls, inner: type[Bot]) -> type[HalfRandomBot]:
        """The half-random bot class of ``inner``."""
        return type(
            f"HalfRandom{inner.__name__}",
            (cls,),
            {"inner": inner, "name": f"half-{inner.name}", "__module__": cls.__module__},
        )

    def choose(self, view: game_pb2.GameView) -> game_pb2.Command:
        """The inner bot's command or a random legal one, with even odds."""
        if self.random.random() < 0.5:
            return self._inner.choose(view)
        return self.random.choice(list(view.legal_commands))
