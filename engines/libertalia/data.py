"""Game data of Libertalia: Winds of Galecrest: the 40 characters, the loot tokens and the numbers tagged
[Z]/[P] in the rules file, all loaded from ``characters.json`` so a corrected table changes no code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, cast

from parlour.v1 import libertalia_pb2 as pb

__all__ = [
    "ANCHOR",
    "CHARACTERS",
    "DAY",
    "DUSK",
    "INCOME",
    "LOOT_COUNTS",
    "LOOT_NAMES",
    "MIDSHIPMAN",
    "MIDSHIPMAN_KEY",
    "NIGHT",
    "NUMBERS",
    "RANKS_PER_VOYAGE",
    "TYPES",
    "VOYAGE_DAYS",
    "Character",
    "has_timing",
    "loot_pb",
    "name_of",
]

DAY, DUSK, NIGHT, ANCHOR = "day", "dusk", "night", "anchor"
MIDSHIPMAN = 0  # the neutral two-player character's rank; it has no owner (seat -1)
TYPES = 7  # loot types, indexed 0..6 in LibertaliaLoot order (enum value - 1)
MAP, BARREL, AMULET, CHEST, HOOK, SABER, RELIC = range(TYPES)


@dataclass(frozen=True)
class Character:
    """One of the 40 characters: rank, name and the timings of its abilities."""

    rank: int
    name: str
    timing: frozenset[str]


def _load() -> dict[str, Any]:
    text = resources.files("engines.libertalia").joinpath("characters.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_DATA = _load()
CHARACTERS: dict[int, Character] = {
    c["rank"]: Character(c["rank"], c["name"], frozenset(c["timing"])) for c in _DATA["characters"]
}
LOOT_NAMES: tuple[str, ...] = tuple(t["name"] for t in _DATA["loot"])
LOOT_COUNTS: tuple[int, ...] = tuple(t["count"] for t in _DATA["loot"])
INCOME: tuple[int, ...] = tuple(_DATA["reputation_income"])
VOYAGE_DAYS: tuple[int, ...] = tuple(_DATA["voyage_days"])
RANKS_PER_VOYAGE: int = _DATA["ranks_per_voyage"]
MIDSHIPMAN_KEY: float = _DATA["midshipman_rank"]
NUMBERS: dict[str, Any] = _DATA["numbers"]
_TIMED = {t: frozenset(r for r, c in CHARACTERS.items() if t in c.timing) for t in (DAY, DUSK, NIGHT, ANCHOR)}


def has_timing(rank: int, timing: str) -> bool:
    """Whether character ``rank`` has an ability with this timing (the Midshipman has none)."""
    return rank in _TIMED[timing]


def name_of(rank: int) -> str:
    """The character's name (``"the Midshipman"`` for rank 0)."""
    return CHARACTERS[rank].name if rank in CHARACTERS else "Midshipman"


def loot_pb(loot: int) -> pb.LibertaliaLoot.ValueType:
    """The LibertaliaLoot enum value of loot index ``loot``."""
    return cast("pb.LibertaliaLoot.ValueType", loot + pb.LIBERTALIA_LOOT_MAP)
