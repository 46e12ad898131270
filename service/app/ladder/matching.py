"""Who plays whom on a ladder: the tables to open now among the bots that are free. Pure: the same bots,
ratings and recent tables always give the same tables.

A bot is free while it plays fewer games than its cap. Tables are filled one at a time:

1. the first seat goes to the free bot that most needs a game: the most uncertain rating first (new bots
   settle fast), then the one waiting longest, then by name;
2. its table is as large as the ladder allows and the free bots fill (the largest seat count that fits);
3. the other seats go to the bots closest to it by :func:`distance`, rating closeness measured in units
   of the two bots' uncertainty (an uncertain bot is near everyone, a settled one only to its like), with
   :data:`REPEAT_PENALTY` added for each bot already seated with it at one of the recent tables (so the
   same group does not meet again and again while others are free).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

__all__ = ["REPEAT_PENALTY", "Candidate", "distance", "match"]

#: Added to the distance between two bots for each recent table they shared (in the units of
#: :func:`distance`: about two standard deviations of their rating difference).
REPEAT_PENALTY = 2.0


@dataclass(frozen=True)
class Candidate:
    """A connected bot of the ladder: its rating, the games it plays now and its cap, and since when (ms)
    it has been waiting for a game."""

    bot: str
    mu: float
    sigma: float
    playing: int = 0
    cap: int = 1
    waiting_since_ms: int = 0

    @property
    def free(self) -> bool:
        """Whether it may be seated at one more table."""
        return self.playing < self.cap


def distance(a: Candidate, b: Candidate) -> float:
    """How far apart two bots' ratings are, in standard deviations of their difference."""
    return abs(a.mu - b.mu) / math.sqrt(a.sigma**2 + b.sigma**2 + 1e-9)


def match(
    candidates: Collection[Candidate], seat_counts: Collection[int], recent: Sequence[Collection[str]] = ()
) -> list[tuple[str, ...]]:
    """The tables to open now, each the bots of its seats (the first seat's bot first), and each bot at
    most once (one more game even under a larger cap: the next call seats it again).

    ``seat_counts`` are the table sizes the ladder plays (each at least 2); ``recent`` the bots of the
    ladder's recent tables, whose groups it avoids repeating."""
    if not seat_counts or min(seat_counts) < 2:
        raise ValueError("a ladder's tables have two or more seats: give seat counts of at least 2")
    free = sorted((c for c in candidates if c.free), key=lambda c: (-c.sigma, c.waiting_since_ms, c.bot))
    met = _met(recent)
    tables: list[tuple[str, ...]] = []
    while free:
        size = max((n for n in seat_counts if n <= len(free)), default=0)
        if not size:
            break
        first, rest = free[0], free[1:]
        closest = sorted(
            rest, key=lambda c: (distance(first, c) + REPEAT_PENALTY * met.get(_pair(first.bot, c.bot), 0), c.bot)
        )
        seated = [first, *closest[: size - 1]]
        tables.append(tuple(c.bot for c in seated))
        free = [c for c in free if c not in seated]
    return tables


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _met(recent: Sequence[Collection[str]]) -> dict[tuple[str, str], int]:
    """How many recent tables each pair of bots shared."""
    met: dict[tuple[str, str], int] = {}
    for table in recent:
        bots = sorted(table)
        for i, a in enumerate(bots):
            for b in bots[i + 1 :]:
                met[(a, b)] = met.get((a, b), 0) + 1
    return met
