"""The state of a game of Verräter: frozen dataclasses, rebuilt by folding the events.

A state carries the rules of its game's version (``State.rules``, a
:class:`~engines.verraeter.data.VerraeterRules` set from the game object when ``game_started`` is folded and
shared by every later state); the engine reads the limits and the action cards' effects from there. The land
types, action cards and number of rounds of the game (what ``game_started`` lists, chosen from those rules by
the seat count and the options) are fields of their own. Snapshots leave the rules out (``GIVEN``): the game
gives them back when it decodes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from engines.snapshot import GIVEN
from engines.verraeter.data import ESTATE, TRADING_POST, LandType, VerraeterRules

__all__ = ["Conflict", "Land", "Phase", "Player", "State", "replace"]

T = TypeVar("T")


def replace(obj: T, **changes: Any) -> T:
    """A copy of the frozen dataclass ``obj`` with ``changes``: ``dataclasses.replace`` without re-running
    ``__init__`` (about ten times faster; the engine only passes existing field names)."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


class Phase(Enum):
    """What the game waits for. REVEAL, RESOLVE, REFILL and ROUND_END are passed through inside one command."""

    SETUP_ESTATES = "setup_estates"
    BATTLEFIELD = "battlefield"
    DRAFT = "draft"
    SUPPLY = "supply"
    REVEAL = "reveal"
    MERCENARY = "mercenary"
    RESOLVE = "resolve"
    BUILD = "build"
    REFILL = "refill"
    DISCARD = "discard"
    ROUND_END = "round_end"
    OVER = "over"


@dataclass(frozen=True)
class Land:
    """A land of the ring: its card, type, controlling house, and building (owner -1: none)."""

    card_id: str
    type: LandType
    house: int
    owner: int = -1
    side: int = 0


@dataclass(frozen=True)
class Player:
    """One seat: house, supply hand (sorted values, hidden), VP, buildings in reserve, and this round's
    played cards, action card (0: none) and cards drawn in the refill."""

    house: int
    hand: tuple[int, ...] = ()
    vp: int = 0
    reserve: int = 0
    played: tuple[int, ...] = ()
    has_played: bool = False
    action: int = 0
    drawn: int = 0


@dataclass(frozen=True)
class Conflict:
    """The result of this round's battle (winner 0: a tie)."""

    eagle_strength: int
    rose_strength: int
    winner: int
    eagle_position: int
    rose_position: int
    winners: int


@dataclass(frozen=True)
class State:
    """A game in progress. ``seed`` is secret (never shown while the game runs); ``action_order[0]`` is the
    round's hidden action card and ``packet`` the draft packet (both hidden from clients). ``rules`` are the
    rules of the version the game began under (not stored in snapshots: the game gives them back)."""

    rules: VerraeterRules = field(metadata=GIVEN, repr=False)
    seats: int
    rounds: int
    rules_version: str
    seed: bytes
    seed_commitment: bytes
    options: tuple[tuple[str, str], ...]
    land_types: tuple[LandType, ...]
    actions: tuple[int, ...]
    seed_salt: bytes = b""  # secret like the seed; in the commitment, revealed with the seed
    players: tuple[Player, ...] = ()
    lands: tuple[Land, ...] = ()
    deck: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()
    phase: Phase = Phase.SETUP_ESTATES
    round: int = 1
    start_seat: int = 0
    strategist: int = 0
    setup_placed: int = 0
    battlefield: int = -1
    action_order: tuple[int, ...] = ()
    packet: tuple[int, ...] = ()
    packet_seat: int = -1
    leftovers: tuple[int, ...] = ()
    supply_turn: int = 0
    mercenary_house: int = 0
    conflict: Conflict | None = None
    reshuffles: int = 0
    discarding: tuple[int, ...] = ()
    early: bool = False
    winners: tuple[int, ...] = ()

    def option(self, name: str) -> str:
        """The value of option ``name``."""
        return dict(self.options)[name]

    @property
    def ring(self) -> int:
        """Number of lands in the ring."""
        return len(self.lands)

    def seat_after(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places to the left (clockwise) of ``seat``."""
        return (seat + steps) % self.seats

    @property
    def setup_seat(self) -> int:
        """In the setup: the seat whose estate is due."""
        return self.seat_after(self.start_seat, self.setup_placed)

    @property
    def supply_seat(self) -> int:
        """In the supply phase: the seat whose play is due."""
        return self.seat_after(self.start_seat, self.supply_turn)

    def holder(self, action: int) -> int:
        """The seat holding action card ``action`` this round, or -1."""
        for seat, player in enumerate(self.players):
            if player.action == action:
                return seat
        return -1

    def pair(self, position: int) -> tuple[Land, Land]:
        """The two lands at ``position`` and the next position around the ring."""
        return self.lands[position], self.lands[(position + 1) % len(self.lands)]

    def is_contested(self, position: int) -> bool:
        """Whether the pair at ``position`` is held by different houses (a legal battlefield)."""
        a, b = self.pair(position)
        return a.house != b.house

    def trading_posts(self, seat: int) -> int:
        """Trading posts ``seat`` has on the board."""
        return sum(1 for land in self.lands if land.owner == seat and land.side == TRADING_POST)

    def estates(self, seat: int) -> int:
        """Estates ``seat`` has on the board."""
        return sum(1 for land in self.lands if land.owner == seat and land.side == ESTATE)

    def land_type(self, type_id: str) -> LandType:
        """The land type with id ``type_id``."""
        return next(t for t in self.land_types if t.id == type_id)
