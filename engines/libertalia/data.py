"""Game data of Libertalia: Winds of Galecrest: the 40 characters, the loot tokens and the numbers tagged
[Z]/[P] in the rules file, all loaded from ``characters.json`` so a corrected table changes no code.

Every number an ability uses is in the file: a character's under its ``numbers`` (read with
:func:`number`), a loot token's or the board's under the top-level ``numbers``. The file is validated
when it is loaded (:func:`validate`): a missing or mistyped entry raises DataError naming the card and
the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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
    "DataError",
    "has_timing",
    "loot_pb",
    "name_of",
    "number",
    "numbers_of",
    "validate",
]

DAY, DUSK, NIGHT, ANCHOR = "day", "dusk", "night", "anchor"
MIDSHIPMAN = 0  # the neutral two-player character's rank; it has no owner (seat -1)
TYPES = 7  # loot types, indexed 0..6 in LibertaliaLoot order (enum value - 1)
MAP, BARREL, AMULET, CHEST, HOOK, SABER, RELIC = range(TYPES)


class DataError(ValueError):
    """``characters.json`` is not valid: the message names the card (or section) and the field."""


@dataclass(frozen=True)
class Character:
    """One of the 40 characters: rank, name, the timings of its abilities and its numbers."""

    rank: int
    name: str
    timing: frozenset[str]
    numbers: Mapping[str, Any] = field(default_factory=dict)


#: The numbers each character's abilities read (values live in the file, names here and in the code).
CHARACTER_NUMBERS: dict[int, tuple[str, ...]] = {
    3: ("pays", "reputation"),
    5: ("leftmost_gain",),
    7: ("reputation_per_token", "anchor"),
    8: ("night", "anchor_per_barrel"),
    10: ("map_reputation", "extra_maps"),
    11: ("keep_divisor", "anchor"),
    12: ("target", "reputation"),
    14: ("per_token",),
    16: ("gain",),
    17: ("reputation",),
    18: ("own_reputation", "other_reputation"),
    20: ("rank_above", "per_character", "discard_at"),
    21: ("rank_below", "per_character"),
    22: ("reputation", "night"),
    23: ("reputation",),
    24: ("base", "per_character"),
    28: ("reputation", "night_per_token"),
    29: ("rightmost_gain",),
    30: ("max_tokens", "gain_by_count"),
    32: ("anchor_per_token",),
    33: ("per_token", "anchor"),
    34: ("reputation", "anchor_alone", "anchor_shared"),
    35: ("anchor_by_types",),
    36: ("per_token", "anchor"),
    37: ("gain",),
    38: ("per_character", "anchor_per_character"),
    40: ("reputation_per_character",),
}
#: Numbers that are lists (a value per count): their length, from the character's other numbers.
_LISTS: dict[tuple[int, str], Callable[[Mapping[str, Any]], int]] = {
    (30, "gain_by_count"): lambda numbers: int(numbers.get("max_tokens", 0)) + 1,  # 0..max_tokens tokens sold
    (35, "anchor_by_types"): lambda numbers: 6,  # 0..5 or more distinct loot types
}
BOARD_NUMBERS = (
    "calm_map_pair",
    "calm_map_trio",
    "calm_barrel_dusk",
    "calm_barrel_anchor",
    "calm_amulet_anchor",
    "calm_chest_anchor",
    "calm_hook_gain",
    "calm_relic_anchor",
    "stormy_barrel_dusk",
    "stormy_barrel_low",
    "stormy_barrel_low_spaces",
    "stormy_barrel_high",
    "stormy_amulet_doubloons",
    "stormy_amulet_reputation",
    "stormy_chest_alone",
    "stormy_chest_shared",
    "stormy_relic_night",
    "stormy_relic_anchor",
)
_TIMINGS = {"day", "dusk", "night", "anchor"}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_number(where: str, name: str, value: Any, length: int | None) -> None:
    if length is None and not _whole(value):
        raise DataError(f"characters.json: {where}: {name!r} must be a whole number, not {value!r}")
    if length is not None and not (isinstance(value, list) and len(value) == length and all(map(_whole, value))):
        raise DataError(f"characters.json: {where}: {name!r} must be a list of {length} whole numbers, not {value!r}")


def _check_character(entry: Any, index: int) -> int:
    if not isinstance(entry, dict) or not _whole(entry.get("rank")) or not 1 <= entry["rank"] <= 40:
        raise DataError(f"characters.json: character entry {index}: 'rank' must be a whole number from 1 to 40")
    rank = entry["rank"]
    where = f"character {rank} ({entry.get('name', '?')})"
    if not isinstance(entry.get("name"), str) or not entry["name"]:
        raise DataError(f"characters.json: {where}: 'name' must be a non-empty string")
    timing = entry.get("timing")
    if not isinstance(timing, list) or not set(timing) <= _TIMINGS:
        raise DataError(f"characters.json: {where}: 'timing' must be a list of {sorted(_TIMINGS)}, not {timing!r}")
    given = entry.get("numbers", {})
    if not isinstance(given, dict):
        raise DataError(f"characters.json: {where}: 'numbers' must be an object")
    for name in CHARACTER_NUMBERS.get(rank, ()):
        if name not in given:
            raise DataError(f"characters.json: {where}: 'numbers' lacks {name!r}")
        length = _LISTS.get((rank, name))
        _check_number(where, f"numbers.{name}", given[name], None if length is None else length(given))
    return int(rank)


def validate(data: Any) -> None:
    """Raise DataError naming the card (or section) and the field when ``data`` (the parsed file) is not a
    valid character table: all 40 characters once each, with a name, timings and every number their
    abilities read; the loot types; the board numbers."""
    if not isinstance(data, dict):
        raise DataError("characters.json: the file must hold one JSON object")
    characters = data.get("characters")
    if not isinstance(characters, list):
        raise DataError("characters.json: 'characters' must be a list of the 40 characters")
    ranks = [_check_character(entry, index) for index, entry in enumerate(characters)]
    if sorted(ranks) != list(range(1, 41)):
        raise DataError("characters.json: 'characters' must list each rank from 1 to 40 exactly once")
    loot = data.get("loot")
    if not isinstance(loot, list) or len(loot) != TYPES:
        raise DataError(f"characters.json: 'loot' must list the {TYPES} loot types")
    for entry in loot:
        _check_number(f"loot {entry.get('name', '?')}", "count", entry.get("count"), None)
    board = data.get("numbers")
    if not isinstance(board, dict):
        raise DataError("characters.json: 'numbers' must be an object")
    for name in BOARD_NUMBERS:
        _check_number("numbers", name, board.get(name), None)
    for name in ("reputation_income", "voyage_days"):
        _check_number(name, name, data.get(name), 6 if name == "reputation_income" else 3)


def _load() -> dict[str, Any]:
    text = resources.files("engines.libertalia").joinpath("characters.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    validate(data)
    return data


_DATA = _load()
CHARACTERS: dict[int, Character] = {
    c["rank"]: Character(c["rank"], c["name"], frozenset(c["timing"]), c.get("numbers", {}))
    for c in _DATA["characters"]
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


def number(rank: int, name: str) -> int:
    """Character ``rank``'s number ``name`` from the file (validated on load)."""
    return int(CHARACTERS[rank].numbers[name])


def numbers_of(rank: int, name: str) -> tuple[int, ...]:
    """Character ``rank``'s list of numbers ``name`` (a value per count) from the file."""
    return tuple(int(v) for v in CHARACTERS[rank].numbers[name])


def name_of(rank: int) -> str:
    """The character's name (``"the Midshipman"`` for rank 0)."""
    return CHARACTERS[rank].name if rank in CHARACTERS else "Midshipman"


def loot_pb(loot: int) -> pb.LibertaliaLoot.ValueType:
    """The LibertaliaLoot enum value of loot index ``loot``."""
    return cast("pb.LibertaliaLoot.ValueType", loot + pb.LIBERTALIA_LOOT_MAP)
