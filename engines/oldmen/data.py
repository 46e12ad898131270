"""Game data of Old Men of the Forest: the 50 player cards and the orangutan table (from a data file)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import NamedTuple

from parlour.v1 import oldmen_pb2 as pb

__all__ = [
    "BROWN",
    "COLOURS",
    "DEAL_ROUNDS",
    "DECK",
    "HAND_SIZE",
    "Card",
    "Orangutan",
    "colour_name",
    "load_orangutans",
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
HAND_SIZE = 10
DEAL_ROUNDS = 10
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
        return pb.OldmenCard(colour=self.colour, value=self.value)  # type: ignore[arg-type]

    @classmethod
    def from_pb(cls, card: pb.OldmenCard) -> Card:
        """The card a message names (not checked: see ``rules.parse_card``)."""
        return cls(int(card.colour), card.value)


DECK: tuple[Card, ...] = tuple(Card(c, v) for c in COLOURS for v in range(1, 11))


@dataclass(frozen=True)
class Orangutan:
    """An orangutan card: its VP and the colours needed to save it (a multiset, never brown)."""

    id: str
    vp: int
    needs: tuple[Colour, ...]

    def to_pb(self) -> pb.OldmenOrangutan:
        """The card as a protobuf message."""
        return pb.OldmenOrangutan(id=self.id, vp=self.vp, needs=self.needs)  # type: ignore[arg-type]

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


def load_orangutans(text: str | None = None) -> tuple[Orangutan, ...]:
    """The orangutan table from ``orangutans.json`` (or from ``text``), checked: unique ids, positive VP,
    known colours, never brown. Raises ``ValueError`` naming the bad entry."""
    if text is None:
        text = resources.files(__package__).joinpath("orangutans.json").read_text(encoding="utf-8")
    cards: list[Orangutan] = []
    for entry in json.loads(text)["orangutans"]:
        needs: list[Colour] = []
        for name, count in sorted(entry["needs"].items()):
            if name not in _BY_NAME or _BY_NAME[name] == BROWN:
                raise ValueError(f"orangutan {entry['id']}: cannot need {name!r}")
            needs += [_BY_NAME[name]] * int(count)
        if not needs or int(entry["vp"]) <= 0:
            raise ValueError(f"orangutan {entry['id']}: needs cards and positive VP")
        cards.append(Orangutan(entry["id"], int(entry["vp"]), tuple(sorted(needs))))
    if len({c.id for c in cards}) != len(cards):
        raise ValueError("orangutan ids must be unique")
    return tuple(cards)
