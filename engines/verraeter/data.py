"""Game data of Verräter: lands, supply deck, action cards and limits (from ``verraeter.json``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from parlour.v1 import verraeter_pb2 as pb

__all__ = [
    "ACTION_IDS",
    "DATA",
    "EAGLE",
    "ESTATE",
    "HOUSES",
    "ROSE",
    "TRADING_POST",
    "ActionEffect",
    "Data",
    "LandCard",
    "LandType",
    "action_name",
    "house_name",
    "load_data",
    "other_house",
]

House = int  # a pb.VerraeterHouse value
Action = int  # a pb.VerraeterAction value
Side = int  # a pb.VerraeterBuildingSide value

EAGLE: House = pb.VERRAETER_HOUSE_EAGLE
ROSE: House = pb.VERRAETER_HOUSE_ROSE
HOUSES: tuple[House, ...] = (EAGLE, ROSE)
ESTATE: Side = pb.VERRAETER_BUILDING_SIDE_ESTATE
TRADING_POST: Side = pb.VERRAETER_BUILDING_SIDE_TRADING_POST
_HOUSE_NAMES = {EAGLE: "Eagle", ROSE: "Rose"}
_HOUSE_BY_ID = {"eagle": EAGLE, "rose": ROSE}
ACTION_IDS: dict[str, Action] = {
    pb.VerraeterAction.Name(a).removeprefix("VERRAETER_ACTION_").lower(): a
    for a in pb.VerraeterAction.values()
    if a != pb.VERRAETER_ACTION_UNSPECIFIED
}
_ACTION_NAMES: dict[int, str] = {
    pb.VERRAETER_ACTION_TRAITOR: "Traitor",
    pb.VERRAETER_ACTION_DIPLOMAT2: "Diplomat +2",
    pb.VERRAETER_ACTION_DIPLOMAT5: "Diplomat +5",
    pb.VERRAETER_ACTION_STRATEGIST: "Strategist",
    pb.VERRAETER_ACTION_BUILDER: "Builder",
    pb.VERRAETER_ACTION_FARMER: "Farmer",
    pb.VERRAETER_ACTION_MERCENARY: "Mercenary",
}


def house_name(house: House) -> str:
    """``"Eagle"`` or ``"Rose"``."""
    return _HOUSE_NAMES.get(house, "no house")


def other_house(house: House) -> House:
    """The opposing house."""
    return ROSE if house == EAGLE else EAGLE


def action_name(action: Action) -> str:
    """The card's printed name, e.g. ``"Diplomat +5"``."""
    return _ACTION_NAMES.get(action, "no card")


@dataclass(frozen=True)
class LandType:
    """A landscape type: base strength and VP per winner for 1..5 winners (``vp[k - 1]``)."""

    id: str
    base: int
    vp: tuple[int, ...]

    def points(self, winners: int) -> int:
        """VP each of ``winners`` seats gains (0 for no winners; the last circle for more winners)."""
        if winners <= 0:
            return 0
        return self.vp[min(winners, len(self.vp)) - 1]

    def to_pb(self) -> pb.VerraeterLandType:
        """The type as a protobuf message."""
        return pb.VerraeterLandType(id=self.id, base=self.base, vp=self.vp)

    @classmethod
    def from_pb(cls, message: pb.VerraeterLandType) -> LandType:
        """The type a message describes."""
        return cls(message.id, message.base, tuple(message.vp))


@dataclass(frozen=True)
class LandCard:
    """A physical landscape card: id, type, the house face up at setup, and whether it is a 5-player card."""

    id: str
    type: str
    start: House
    five_player: bool


@dataclass(frozen=True)
class ActionEffect:
    """What an action card gives: strength to its holder's house, unconditional VP, supply draws."""

    strength: int
    vp: int
    draws: int
    optional: bool


@dataclass(frozen=True)
class Data:
    """Every number of the game that the rules file lists (proposed values included)."""

    rounds: dict[int, int]
    hand_limit: int
    max_play: int
    refill_cap: int
    start_hand_size: int
    classic_start_hand: tuple[int, ...]
    buildings_per_player: int
    trading_post_limit: int
    trading_post_bonus_cap: int
    land_types: tuple[LandType, ...]
    lands: tuple[LandCard, ...]
    supply_base: tuple[int, ...]
    supply_five_player: tuple[int, ...]
    actions: dict[Action, ActionEffect]

    def lands_for(self, seats: int) -> tuple[LandCard, ...]:
        """The land cards in play (the 5-player ones only with 5 seats)."""
        return tuple(land for land in self.lands if seats == 5 or not land.five_player)

    def supply_for(self, seats: int) -> tuple[int, ...]:
        """The supply deck's values (with the 4 marked cards only with 5 seats)."""
        return self.supply_base + (self.supply_five_player if seats == 5 else ())

    def actions_for(self, mercenary: bool) -> tuple[Action, ...]:
        """The action cards in play, in enum order (the optional Mercenary only if enabled)."""
        return tuple(a for a, e in sorted(self.actions.items()) if mercenary or not e.optional)


def load_data(text: str | None = None) -> Data:
    """The game data from ``verraeter.json`` (or ``text``), checked: known houses, actions and land types,
    VP tables for 1..5 winners, positive supply values. Raises ``ValueError`` naming the bad entry."""
    if text is None:
        text = resources.files(__package__).joinpath("verraeter.json").read_text(encoding="utf-8")
    raw: dict[str, Any] = json.loads(text)
    types = tuple(LandType(t["id"], int(t["base"]), tuple(int(v) for v in t["vp"])) for t in raw["land_types"])
    known = {t.id for t in types}
    for land_type in types:
        if len(land_type.vp) != 5:
            raise ValueError(f"land type {land_type.id}: needs a VP value for 1 to 5 winners")
    lands = tuple(_land(entry, known) for entry in raw["lands"])
    if len({land.id for land in lands}) != len(lands):
        raise ValueError("land card ids must be unique")
    supply = tuple(int(v) for v in raw["supply"]["base"])
    extra = tuple(int(v) for v in raw["supply"]["five_player"])
    if min(supply + extra) < 1:
        raise ValueError("supply card values must be positive")
    return Data(
        rounds={int(k): int(v) for k, v in raw["rounds"].items()},
        hand_limit=int(raw["hand_limit"]),
        max_play=int(raw["max_play"]),
        refill_cap=int(raw["refill_cap"]),
        start_hand_size=int(raw["start_hand_size"]),
        classic_start_hand=tuple(int(v) for v in raw["classic_start_hand"]),
        buildings_per_player=int(raw["buildings_per_player"]),
        trading_post_limit=int(raw["trading_post_limit"]),
        trading_post_bonus_cap=int(raw["trading_post_bonus_cap"]),
        land_types=types,
        lands=lands,
        supply_base=supply,
        supply_five_player=extra,
        actions={_action(a["id"]): _effect(a) for a in raw["actions"]},
    )


def _land(entry: dict[str, Any], known: set[str]) -> LandCard:
    if entry["type"] not in known or entry["start"] not in _HOUSE_BY_ID:
        raise ValueError(f"land {entry['id']}: unknown type or starting house")
    return LandCard(entry["id"], entry["type"], _HOUSE_BY_ID[entry["start"]], bool(entry.get("five_player", False)))


def _action(name: str) -> Action:
    if name not in ACTION_IDS:
        raise ValueError(f"unknown action card {name!r}")
    return ACTION_IDS[name]


def _effect(entry: dict[str, Any]) -> ActionEffect:
    return ActionEffect(int(entry["strength"]), int(entry["vp"]), int(entry["draws"]), bool(entry.get("optional")))


#: The game data of this rules version, loaded once from ``verraeter.json``.
DATA: Data = load_data()
