"""The state of a game of Libertalia: frozen dataclasses with tuples, rebuilt by folding the events.

The state carries the rules of the version its game began under (``State.rules``, set when game_started is
folded, given back to snapshots rather than stored in them): everything that reads the state reads its data
from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from engines.libertalia.data import LibertaliaRules
from engines.snapshot import GIVEN

__all__ = ["Card", "Effect", "Phase", "Player", "Prompt", "State", "evolve_replace"]


class Phase(Enum):
    """What the game is doing (see LibertaliaPhase)."""

    SELECT = 1
    DAY = 2
    DUSK = 3
    NIGHT = 4
    ANCHOR = 5
    OVER = 6


@dataclass(frozen=True)
class Card:
    """A card on the island: owner (-1 for the Midshipman), rank and whether its day/dusk steps are done
    (the island is ordered by ``LibertaliaRules.order_key`` of the ranks, then reputation)."""

    seat: int
    rank: int
    day_done: bool = False
    dusk_done: bool = False


@dataclass(frozen=True)
class Effect:
    """An ability due now: a character's (rank > 0) or a loot type's (rank 0, loot >= 0)."""

    seat: int
    rank: int
    loot: int
    timing: str


@dataclass(frozen=True)
class Prompt:
    """A choice ``seat`` must make: its kind (a LibertaliaChoiceKind value), the island/ship character that
    caused it (``source``), the character whose ability is used (``ability``) and a loot type if any."""

    seat: int
    kind: int
    source: int = 0
    ability: int = 0
    loot: int = -1


@dataclass(frozen=True)
class Player:
    """One seat. ``supply`` counts loot per type; ``selected`` is today's secret pick (0: none)."""

    hand: tuple[int, ...] = ()
    ship: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()
    graveyard: tuple[int, ...] = ()
    supply: tuple[int, ...] = (0, 0, 0, 0, 0, 0, 0)
    doubloons: int = 0
    score: int = 0
    selected: int = 0
    anchor_gain: int = 0

    @property
    def loot_count(self) -> int:
        """How many loot tokens the seat holds."""
        return sum(self.supply)


@dataclass(frozen=True)
class State:
    """A game in progress. ``seed`` is secret (never shown while the game runs). ``rules``: the data and
    flags of the rules version the game began under (not stored in snapshots: the game gives it back)."""

    seats: int
    board: str
    sides: tuple[int, ...]  # per loot type: 0 calm, 1 stormy
    rules_version: str
    rules: LibertaliaRules = field(metadata=GIVEN, repr=False)
    seed: bytes
    seed_commitment: bytes
    midshipman: bool
    players: tuple[Player, ...]
    reputation: tuple[int, ...]  # left to right: owner seat or -1
    seed_salt: bytes = b""  # secret like the seed; in the commitment, revealed with the seed
    bag: tuple[int, ...] = (0, 0, 0, 0, 0, 0, 0)
    draws: int = 0
    voyage: int = 0
    days: int = 0
    day: int = 0
    boxes: tuple[tuple[int, ...], ...] = ()
    dealt: tuple[int, ...] = ()
    phase: Phase = Phase.SELECT
    island: tuple[Card, ...] = ()
    prompt: Prompt | None = None
    queue: tuple[Effect, ...] = ()
    dusk_card: tuple[int, int] | None = None
    nymphs: tuple[int, ...] = ()
    turn: int = -1  # night/anchor: the last seat whose abilities were queued
    winner: int = -1
    hidden_scores: bool = False

    def space(self, seat: int) -> int:
        """The reputation space of ``seat`` (0 = leftmost)."""
        return self.reputation.index(seat)

    @property
    def pool(self) -> tuple[int, ...]:
        """Today's loot tokens (the current day's box)."""
        return self.boxes[self.day - 1] if 0 < self.day <= len(self.boxes) else ()

    def stormy(self, loot: int) -> bool:
        """Whether loot type ``loot`` uses its Stormy effects."""
        return self.sides[loot] == 1

    def island_index(self, seat: int, rank: int) -> int:
        """The index of that card on the island, or -1."""
        for index, card in enumerate(self.island):
            if card.seat == seat and card.rank == rank:
                return index
        return -1


T = TypeVar("T", Card, Player, State)


def evolve_replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for these frozen dataclasses, without re-running ``__init__``.

    The state has no ``__post_init__`` or validation, so copying the instance dictionary is equivalent and
    about ten times faster; evolve runs it for every event (the engine's speed budget is 50 µs a command).
    """
    new = object.__new__(type(obj))
    object.__setattr__(new, "__dict__", {**obj.__dict__, **changes})
    return new
