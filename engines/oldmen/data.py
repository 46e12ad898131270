"""Game data of Old Men of the Forest: the 50 player cards, and the rules of a version (:class:`OldmenRules`:
the orangutan table read from its data file, and the numbers of a deal and of its score).

The cards and the colours are the game's components, the same in every rules version: they stay module
constants. What a rules version may change lives in :class:`OldmenRules`, built by :func:`load_rules` from
a data file beside this module (``orangutans.json`` for ``oldmen/1``); a state carries the rules of the
version its game began under (``State.rules``), and the engine reads them from there.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from engines.rules import RulesVersion, data_file
from parlour.v1 import oldmen_pb2 as pb

__all__ = [
    "BROWN",
    "COLOURS",
    "DECK",
    "Card",
    "OldmenRules",
    "Orangutan",
    "colour_name",
    "load_rules",
    "read_rules",
]

Colour = int  # a pb.OldmenColour value

COLOURS: tuple[Colour, ...] = (
    pb.OLDMEN_COLOUR_RED,
    pb.OLDMEN_COLOUR_YELLOW,
    pb.OLDMEN_COLOUR_BLUE,
    pb.OLDMEN_COLOUR_GREEN,
    pb.OLDMEN_COLOUR_BROWN,
)
BROWN: Colour = pb.OLDMEN_COLOUR_BROWN
_NAMES = {
    colour: pb.OldmenColour.Name(pb.OldmenColour.ValueType(colour)).removeprefix("OLDMEN_COLOUR_").lower()
    for colour in COLOURS
}
_BY_NAME = {name: colour for colour, name in _NAMES.items()}


class Card(NamedTuple):
    """A player card: its colour (a ``pb.OldmenColour`` value) and value 1..10."""

    colour: Colour
    value: int

    def __str__(self) -> str:
        return f"{_NAMES[self.colour]} {self.value}"

    def to_pb(self) -> pb.OldmenCard:
        """The card as a protobuf message."""
        return pb.OldmenCard(colour=self.colour, value=self.value)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int

    @classmethod
    def from_pb(cls, card: pb.OldmenCard) -> Card:
        """The card a message names: the deck's own instance (see :data:`DECK_BY_PAIR`), or a new one for a
        card no deck holds (not checked: see ``rules.parse_card``)."""
        colour, value = int(card.colour), card.value
        return DECK_BY_PAIR.get((colour, value)) or cls(colour, value)


#: The 50 player cards: every colour with the values 1 to 10, once each.
DECK: tuple[Card, ...] = tuple(Card(c, v) for c in COLOURS for v in range(1, 11))
#: Each card of :data:`DECK` by colour and value. Cards read from messages are these instances, so the
#: states of every game a server holds share the 50 cards rather than each holding copies of its own.
DECK_BY_PAIR: Mapping[tuple[int, int], Card] = MappingProxyType({(card.colour, card.value): card for card in DECK})


@dataclass(frozen=True)
class Orangutan:
    """An orangutan card: its VP and the colours needed to save it (a multiset, never brown)."""

    id: str
    vp: int
    needs: tuple[Colour, ...]

    def to_pb(self) -> pb.OldmenOrangutan:
        """The card as a protobuf message."""
        return pb.OldmenOrangutan(id=self.id, vp=self.vp, needs=self.needs)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int

    @classmethod
    def from_pb(cls, card: pb.OldmenOrangutan) -> Orangutan:
        """The card a message describes."""
        return cls(card.id, card.vp, tuple(int(c) for c in card.needs))

    def describe_needs(self) -> str:
        """E.g. ``"1 red and 1 yellow"``."""
        counts = Counter(self.needs)
        parts = [f"{counts[c]} {_NAMES[c]}" for c in COLOURS if counts[c]]
        return " and ".join(parts)


def colour_name(colour: Colour) -> str:
    """The engine id of a colour (``"red"``, ...)."""
    return _NAMES[colour]


@dataclass(frozen=True)
class OldmenRules:
    """The rules of one version of Old Men of the Forest: ``version`` names them (its data file and flags),
    ``orangutans`` is the orangutan table of that data file, and the numbers are those of the rules
    (``shared/rules/old-men-of-the-forest.md``): cards per hand, rounds per deal (one per card), points lost
    per card tucked or left in the pool and per brown one. The numbers are the same in every version so
    far; a version that changes one sets it from a rule flag (see :func:`read_rules`).

    Immutable and shared by every state of the games of its version (states carry it, snapshots leave it
    out: :data:`engines.snapshot.GIVEN`).
    """

    version: RulesVersion
    orangutans: tuple[Orangutan, ...]
    hand_size: int = 10
    deal_rounds: int = 10
    penalty: int = 1
    brown_penalty: int = 2

    def orangutan(self, orangutan_id: str) -> Orangutan | None:
        """The orangutan card with that id, if the table has one."""
        for orangutan in self.orangutans:  # a plain loop over a short table
            if orangutan.id == orangutan_id:
                return orangutan
        return None

    def penalty_of(self, cards: Iterable[Card]) -> int:
        """The points ``cards`` (tucked or left in a pool) cost: ``penalty`` each, ``brown_penalty`` for brown."""
        return sum(self.brown_penalty if c.colour == BROWN else self.penalty for c in cards)


#: The rule flags an Old Men version may set: none yet (a later version adds its flag here and in
#: :func:`read_rules`).
_FLAGS: frozenset[str] = frozenset()


def load_rules(name: str, *, file: str = "orangutans.json", flags: Mapping[str, str] | None = None) -> OldmenRules:
    """The rules of version ``name`` (``"oldmen/1"``): the orangutan table of the data file ``file`` of this
    package, and the rule ``flags``. Raises ``ValueError`` naming the version, the file and the bad entry
    (see :func:`read_rules`)."""
    return read_rules(RulesVersion.of(name, (data_file("engines.oldmen", file),), flags))


def read_rules(version: RulesVersion) -> OldmenRules:
    """The rules ``version`` names: its one data file parsed and checked (unique ids, positive VP, known
    colours, never brown), its flags known. Raises ``ValueError`` with a sentence naming the version, the
    file and the bad entry or flag."""
    if version.game != "oldmen":
        raise ValueError(f"{version.name} is not a rules version of Old Men of the Forest (oldmen/<number>)")
    if len(version.files) != 1:
        raise ValueError(f"{version.name}: Old Men of the Forest rules read one data file, the orangutan table")
    unknown = sorted(set(dict(version.flags)) - _FLAGS)
    if unknown:
        raise ValueError(f"{version.name}: Old Men of the Forest has no rule flag {unknown[0]!r}")
    source = version.files[0]
    try:
        orangutans = _orangutans(json.loads(source.content))
    except ValueError as error:
        raise ValueError(f"{version.name}, {source.path}: {error}") from None
    return OldmenRules(version=version, orangutans=orangutans)


def _orangutans(raw: Any) -> tuple[Orangutan, ...]:
    entries = raw.get("orangutans") if isinstance(raw, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ValueError("the file needs a list 'orangutans'")
    cards = tuple(_orangutan(entry, index) for index, entry in enumerate(entries))
    if len({c.id for c in cards}) != len(cards):
        raise ValueError("orangutan ids must be unique")
    return cards


def _orangutan(entry: Any, index: int) -> Orangutan:
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        raise ValueError(f"orangutan number {index + 1}: needs an 'id'")
    name = entry["id"]
    needs_raw, vp = entry.get("needs"), entry.get("vp")
    if not isinstance(needs_raw, dict) or not isinstance(vp, int):
        raise ValueError(f"orangutan {name}: needs a number 'vp' and the colours it 'needs'")
    needs: list[Colour] = []
    for colour, count in sorted(needs_raw.items()):
        if colour not in _BY_NAME or _BY_NAME[colour] == BROWN:
            raise ValueError(f"orangutan {name}: cannot need {colour!r}")
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"orangutan {name}: needs a positive count of {colour}")
        needs += [_BY_NAME[colour]] * count
    if not needs or vp <= 0:
        raise ValueError(f"orangutan {name}: needs cards and positive VP")
    return Orangutan(name, vp, tuple(sorted(needs)))
