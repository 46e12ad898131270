"""The state of a game of Old Men of the Forest: frozen dataclasses, rebuilt by folding the events.

A state carries the rules of its game's version (``State.rules``, an :class:`~engines.oldmen.data.OldmenRules`
set from the game object when ``game_started`` is folded and shared by every later state); the engine reads
the orangutan table and the numbers of the rules from there. Snapshots leave the rules out (``GIVEN``): the
game gives them back when it decodes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from engines.oldmen.data import Card, OldmenRules, Orangutan
from engines.snapshot import GIVEN

__all__ = ["Phase", "Saved", "SeatState", "State", "evolve_replace"]


class Phase(Enum):
    """What the current round waits for."""

    PLAY = "play"
    TAKE = "take"
    SAVE = "save"
    SCORING = "scoring"  # transient: after the tenth round, before the deal's scores are recorded
    OVER = "over"


@dataclass(frozen=True)
class Saved:
    """An orangutan a seat saved, with the cards tucked under it."""

    orangutan: Orangutan
    tucked: tuple[Card, ...]


@dataclass(frozen=True)
class SeatState:
    """One seat: hand (hidden), won-card pool and saved orangutans (public), and earlier deals' results."""

    hand: tuple[Card, ...] = ()
    pool: tuple[Card, ...] = ()
    saved: tuple[Saved, ...] = ()
    match_score: int = 0
    match_vps: tuple[int, ...] = ()

    @property
    def orangutan_points(self) -> int:
        """VP of the orangutans saved in this deal."""
        return sum(s.orangutan.vp for s in self.saved)

    @property
    def penalised(self) -> tuple[Card, ...]:
        """The cards that cost points: those under the saved orangutans and those left in the pool."""
        return (*(c for s in self.saved for c in s.tucked), *self.pool)

    def penalty(self, rules: OldmenRules) -> int:
        """Points lost for :attr:`penalised` cards, by ``rules`` (1 each, 2 for brown in every version so far)."""
        return rules.penalty_of(self.penalised)

    def score(self, rules: OldmenRules) -> int:
        """This deal's score so far, by ``rules``."""
        return self.orangutan_points - self.penalty(rules)

    def can_fund(self, orangutan: Orangutan) -> bool:
        """Whether the pool holds the colours the orangutan needs (brown never pays)."""
        needs = orangutan.needs
        if len(self.pool) < len(needs):  # each needed colour takes a card of its own
            return False
        have = [c.colour for c in self.pool]
        return all(have.count(colour) >= needs.count(colour) for colour in set(needs))


@dataclass(frozen=True)
class State:
    """A game in progress. ``seed`` is secret (never shown while the game runs). ``rules`` are the rules of
    the version the game began under (not stored in snapshots: the game gives them back)."""

    rules: OldmenRules = field(metadata=GIVEN, repr=False)
    seats: int
    match_deals: int
    rules_version: str
    seed: bytes
    seed_commitment: bytes
    players: tuple[SeatState, ...]
    seed_salt: bytes = b""  # secret like the seed; in the commitment, revealed with the seed
    deal: int = 0
    round: int = 1
    leader: int = 0
    phase: Phase = Phase.PLAY
    trick: tuple[tuple[int, Card], ...] = ()
    first: int = -1
    second: int = -1
    taken: tuple[int, ...] = ()
    saves_done: int = 0
    row: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    discard: tuple[Card, ...] = ()
    winners: tuple[int, ...] = ()

    @property
    def acting_winner(self) -> int:
        """In the take and save phases: the winner whose decision is due (first, then second)."""
        done = len(self.taken) if self.phase is Phase.TAKE else self.saves_done
        return self.first if done == 0 else self.second

    @property
    def to_play(self) -> int:
        """In the play phase: the seat whose card is due."""
        return (self.leader + len(self.trick)) % self.seats

    @property
    def is_last_round(self) -> bool:
        """Whether this is the deal's last round (``rules.deal_rounds``: one per card of a hand)."""
        return self.round == self.rules.deal_rounds

    def orangutan(self, orangutan_id: str) -> Orangutan | None:
        """The orangutan card with that id, if the game's rules have one."""
        return self.rules.orangutan(orangutan_id)

    def card_of(self, seat: int) -> Card | None:
        """The card ``seat`` played to the current trick, if any."""
        for s, card in self.trick:
            if s == seat:
                return card
        return None


T = TypeVar("T", SeatState, State)


def evolve_replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)`` for these frozen dataclasses, without re-running ``__init__``.

    ``SeatState`` and ``State`` have no ``__post_init__``, no ``init=False`` field and no validation, so a
    new instance whose dictionary is the old one's with ``changes`` applied is equal field for field to what
    ``replace`` builds, about ten times faster (evolve runs it for every event). ``obj`` is left untouched,
    and the copy, like every state, must never be changed after it is returned.
    """
    fields = obj.__dict__.copy()
    fields.update(changes)
    new = object.__new__(type(obj))
    object.__setattr__(new, "__dict__", fields)
    return new
