"""Game data of Verräter: the rules of a version (:class:`VerraeterRules`: lands, supply deck, action cards
and limits, read from a data file), and the names of houses, sides and action cards.

The names are pure constants of the game (enum maps) and stay module constants. Everything a rules version
may change lives in :class:`VerraeterRules`, built by :func:`load_rules` from a data file beside this module
(``verraeter.json`` for ``verraeter/1``); a state carries the rules of the version its game began under
(``State.rules``), and the engine reads them from there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engines.rules import RulesVersion, data_file
from parlour.v1 import verraeter_pb2 as pb

__all__ = [
    "ACTION_IDS",
    "EAGLE",
    "ESTATE",
    "HOUSES",
    "ROSE",
    "TRADING_POST",
    "ActionEffect",
    "LandCard",
    "LandType",
    "VerraeterRules",
    "action_name",
    "house_name",
    "load_rules",
    "other_house",
    "read_rules",
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
class VerraeterRules:
    """The rules of one version of Verräter: ``version`` names them (its data file and flags), and the rest
    is every number of the game that the rules file lists (proposed values included), read from that data
    file: rounds per seat count, limits, land types and cards, the supply deck, the action cards' effects.

    Immutable (the two tables are never changed) and shared by every state of the games of its version
    (states carry it, snapshots leave it out: :data:`engines.snapshot.GIVEN`).
    """

    version: RulesVersion
    rounds: Mapping[int, int] = field(hash=False)
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
    actions: Mapping[Action, ActionEffect] = field(hash=False)

    def lands_for(self, seats: int) -> tuple[LandCard, ...]:
        """The land cards in play (the 5-player ones only with 5 seats)."""
        return tuple(land for land in self.lands if seats == 5 or not land.five_player)

    def supply_for(self, seats: int) -> tuple[int, ...]:
        """The supply deck's values (with the 4 marked cards only with 5 seats)."""
        return self.supply_base + (self.supply_five_player if seats == 5 else ())

    def actions_for(self, mercenary: bool) -> tuple[Action, ...]:
        """The action cards in play, in enum order (the optional Mercenary only if enabled)."""
        return tuple(a for a, e in sorted(self.actions.items()) if mercenary or not e.optional)


#: The rule flags a Verräter version may set: none yet (a later version adds its flag here and in
#: :func:`read_rules`).
_FLAGS: frozenset[str] = frozenset()


def load_rules(name: str, *, file: str = "verraeter.json", flags: Mapping[str, str] | None = None) -> VerraeterRules:
    """The rules of version ``name`` (``"verraeter/1"``): the data file ``file`` of this package, and the rule
    ``flags``. Raises ``ValueError`` naming the version, the file and the bad entry (see :func:`read_rules`)."""
    return read_rules(RulesVersion.of(name, (data_file("engines.verraeter", file),), flags))


def read_rules(version: RulesVersion) -> VerraeterRules:
    """The rules ``version`` names: its one data file parsed and checked (rounds for 3 to 5 seats, known
    houses, actions and land types, VP tables for 1..5 winners, unique land ids, positive supply values), its
    flags known. Raises ``ValueError`` with a sentence naming the version, the file and the bad entry."""
    if version.game != "verraeter":
        raise ValueError(f"{version.name} is not a rules version of Verräter (verraeter/<number>)")
    if len(version.files) != 1:
        raise ValueError(f"{version.name}: Verräter rules read one data file")
    unknown = sorted(set(dict(version.flags)) - _FLAGS)
    if unknown:
        raise ValueError(f"{version.name}: Verräter has no rule flag {unknown[0]!r}")
    source = version.files[0]
    try:
        return _parse(version, json.loads(source.content))
    except KeyError as missing:
        raise ValueError(f"{version.name}, {source.path}: an entry lacks the field {missing}") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"{version.name}, {source.path}: {error}") from None


def _parse(version: RulesVersion, raw: dict[str, Any]) -> VerraeterRules:
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
    rounds = {int(k): int(v) for k, v in raw["rounds"].items()}
    if sorted(rounds) != [3, 4, 5]:
        raise ValueError("rounds: needs the number of rounds for 3, 4 and 5 players")
    return VerraeterRules(
        version=version,
        rounds=rounds,
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
