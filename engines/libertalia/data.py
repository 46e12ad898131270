"""The data and flags of one rules version of Libertalia: Winds of Galecrest (:class:`LibertaliaRules`).

A rules version reads a data file (``characters.json``: the 40 characters, the loot tokens and every number
tagged [Z]/[P] in the rules file) and rule flags, which select between variants of the code where versions
differ (:data:`FLAGS`). :func:`load_rules` parses and validates them into a :class:`LibertaliaRules`; the
game object holds it, and every state it folds carries it (``State.rules``), so whatever decides, folds or
views a game reads the data of the version the game began under, never a module-level table.

Every number an ability uses is in the file: a character's under its ``numbers`` (read with
:meth:`LibertaliaRules.number`), a loot token's or the board's under the top-level ``numbers``. The file is
validated when it is loaded (:func:`validate`): a missing or mistyped entry raises DataError naming the
file, the card and the field. A released rules version never changes (its fingerprint and golden
transcript are pinned by tests): a corrected number is a copy of the file, read by a new rules version.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from engines.rules import DataFile, RulesVersion, data_file
from parlour.v1 import libertalia_pb2 as pb

__all__ = [
    "ANCHOR",
    "ANCHOR_NETTED",
    "ANCHOR_ORDERED",
    "CHARACTER_NUMBERS",
    "DAY",
    "DUSK",
    "FLAGS",
    "MIDSHIPMAN",
    "NIGHT",
    "TURNS_SEAT_BY_SEAT",
    "TURNS_TOGETHER",
    "TYPES",
    "Character",
    "DataError",
    "LibertaliaRules",
    "load_rules",
    "loot_pb",
    "validate",
]

DAY, DUSK, NIGHT, ANCHOR = "day", "dusk", "night", "anchor"
MIDSHIPMAN = 0  # the neutral two-player character's rank; it has no owner (seat -1)
TYPES = 7  # loot types, indexed 0..6 in LibertaliaLoot order (enum value - 1)
MAP, BARREL, AMULET, CHEST, HOOK, SABER, RELIC = range(TYPES)

#: Flag ``anchor``, how the anchor abilities of a seat resolve (rule 4.1). ``netted`` (libertalia/1): as
#: the anchor begins every lone night Witch returns to her owner's hand; only the anchor choices (Calm hook,
#: Stormy amulet) are queued; everything else, the First Mate's count of the ship and a Stormy barrel's
#: reading of the track included, is netted at scoring. ``ordered`` (libertalia/2): the anchor abilities
#: whose order changes the result (the Witch's return, the First Mate, Stormy barrels, the choices) are
#: queued and resolve one at a time, in the order the seat chooses where it matters, each recording its
#: value when it resolves.
ANCHOR_NETTED, ANCHOR_ORDERED = "netted", "ordered"
#: Flag ``turns``, how the seats' night and anchor abilities become due. ``together`` (libertalia/1): every
#: seat's at once, in one EffectsQueued naming the last seat, resolved seat by seat. ``seat_by_seat``
#: (libertalia/2): one EffectsQueued per seat with abilities due, in seat order, each when the previous
#: seat's abilities have resolved.
TURNS_TOGETHER, TURNS_SEAT_BY_SEAT = "together", "seat_by_seat"
#: Every rule flag and its allowed values (a version gives each one).
FLAGS: Mapping[str, tuple[str, ...]] = types.MappingProxyType(
    {"anchor": (ANCHOR_NETTED, ANCHOR_ORDERED), "turns": (TURNS_TOGETHER, TURNS_SEAT_BY_SEAT)}
)


class DataError(ValueError):
    """A data file is not valid: the message names the file, the card (or section) and the field."""


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
        raise DataError(f"{where}: {name!r} must be a whole number, not {value!r}")
    if length is not None and not (isinstance(value, list) and len(value) == length and all(map(_whole, value))):
        raise DataError(f"{where}: {name!r} must be a list of {length} whole numbers, not {value!r}")


def _check_character(entry: Any, index: int) -> int:
    if not isinstance(entry, dict) or not _whole(entry.get("rank")) or not 1 <= entry["rank"] <= 40:
        raise DataError(f"character entry {index}: 'rank' must be a whole number from 1 to 40")
    rank = entry["rank"]
    where = f"character {rank} ({entry.get('name', '?')})"
    if not isinstance(entry.get("name"), str) or not entry["name"]:
        raise DataError(f"{where}: 'name' must be a non-empty string")
    timing = entry.get("timing")
    if not isinstance(timing, list) or not set(timing) <= _TIMINGS:
        raise DataError(f"{where}: 'timing' must be a list of {sorted(_TIMINGS)}, not {timing!r}")
    given = entry.get("numbers", {})
    if not isinstance(given, dict):
        raise DataError(f"{where}: 'numbers' must be an object")
    for name in CHARACTER_NUMBERS.get(rank, ()):
        if name not in given:
            raise DataError(f"{where}: 'numbers' lacks {name!r}")
        length = _LISTS.get((rank, name))
        _check_number(where, f"numbers.{name}", given[name], None if length is None else length(given))
    return int(rank)


def validate(data: Any, file: str = "characters.json") -> None:
    """Raise DataError naming ``file``, the card (or section) and the field when ``data`` (the parsed
    file) is not a valid character table: all 40 characters once each, with a name, timings and every
    number their abilities read; the loot types; the board numbers; the voyages and the Midshipman."""
    try:
        _validate(data)
    except DataError as error:
        raise DataError(f"{file}: {error}") from None


def _validate(data: Any) -> None:
    if not isinstance(data, dict):
        raise DataError("the file must hold one JSON object")
    characters = data.get("characters")
    if not isinstance(characters, list):
        raise DataError("'characters' must be a list of the 40 characters")
    ranks = [_check_character(entry, index) for index, entry in enumerate(characters)]
    if sorted(ranks) != list(range(1, 41)):
        raise DataError("'characters' must list each rank from 1 to 40 exactly once")
    loot = data.get("loot")
    if not isinstance(loot, list) or len(loot) != TYPES or not all(isinstance(entry, dict) for entry in loot):
        raise DataError(f"'loot' must list the {TYPES} loot types")
    for entry in loot:
        _check_number(f"loot {entry.get('name', '?')}", "count", entry.get("count"), None)
    board = data.get("numbers")
    if not isinstance(board, dict):
        raise DataError("'numbers' must be an object")
    for name in BOARD_NUMBERS:
        _check_number("numbers", name, board.get(name), None)
    for name in ("reputation_income", "voyage_days"):
        _check_number(name, name, data.get(name), 6 if name == "reputation_income" else 3)
    _check_number("ranks_per_voyage", "ranks_per_voyage", data.get("ranks_per_voyage"), None)
    midshipman = data.get("midshipman_rank")
    if not isinstance(midshipman, int | float) or isinstance(midshipman, bool):
        raise DataError(f"midshipman_rank: 'midshipman_rank' must be a number, not {midshipman!r}")


@dataclass(frozen=True)
class LibertaliaRules:
    """The rules of one version: its identity (``version``: name, data file, flags), the parsed and
    validated data, and the flags (:data:`FLAGS`) as fields. Built by :func:`load_rules`; immutable.

    Two rules are equal when their versions' fingerprints are (the same name, data and flags give the same
    rules, whatever the comments and layout of the file); the other fields follow from the version.
    """

    version: RulesVersion = field(compare=False)
    fingerprint: str  # version.fingerprint(), computed once
    characters: Mapping[int, Character] = field(compare=False)
    loot_names: tuple[str, ...] = field(compare=False)
    loot_counts: tuple[int, ...] = field(compare=False)
    income: tuple[int, ...] = field(compare=False)  # doubloons at voyage start, by reputation space
    voyage_days: tuple[int, ...] = field(compare=False)
    ranks_per_voyage: int = field(compare=False)
    midshipman_key: float = field(compare=False)  # the Midshipman's place among the ranks (20.5)
    board: Mapping[str, int] = field(compare=False)  # the loot tokens' and the board's numbers
    anchor: str = field(compare=False)  # flag: ANCHOR_NETTED or ANCHOR_ORDERED
    turns: str = field(compare=False)  # flag: TURNS_TOGETHER or TURNS_SEAT_BY_SEAT
    timed: Mapping[str, frozenset[int]] = field(compare=False)  # the ranks with an ability of each timing

    def __repr__(self) -> str:
        return f"LibertaliaRules({self.version.name!r})"

    def __copy__(self) -> LibertaliaRules:
        return self  # immutable: a copy of a state shares its rules

    def __deepcopy__(self, memo: dict[int, Any]) -> LibertaliaRules:
        return self

    def has_timing(self, rank: int, timing: str) -> bool:
        """Whether character ``rank`` has an ability with this timing (the Midshipman has none)."""
        return rank in self.timed[timing]

    def number(self, rank: int, name: str) -> int:
        """Character ``rank``'s number ``name`` (validated on load)."""
        return int(self.characters[rank].numbers[name])

    def numbers_of(self, rank: int, name: str) -> tuple[int, ...]:
        """Character ``rank``'s list of numbers ``name`` (a value per count)."""
        return tuple(int(v) for v in self.characters[rank].numbers[name])

    def name_of(self, rank: int) -> str:
        """The character's name (``"Midshipman"`` for rank 0)."""
        character = self.characters.get(rank)
        return character.name if character is not None else "Midshipman"

    def order_key(self, rank: int) -> float:
        """The rank that orders an island card (the Midshipman's is ``midshipman_key``)."""
        return self.midshipman_key if rank == MIDSHIPMAN else float(rank)


def load_rules(
    name: str, file: str | DataFile = "characters.json", flags: Mapping[str, str] | None = None
) -> LibertaliaRules:
    """The rules of version ``name`` (``"libertalia/2"``): the data of ``file`` (a file of this package, read
    with :func:`engines.rules.data_file`, or a :class:`~engines.rules.DataFile` given whole) and ``flags``,
    which must give every flag of :data:`FLAGS` one of its values. Raises DataError naming the file, the
    card and the field for invalid data, ValueError for a bad name or flags."""
    data = data_file("engines.libertalia", file) if isinstance(file, str) else file
    version = RulesVersion.of(name, (data,), flags)
    if version.game != "libertalia":
        raise ValueError(f"{name!r} is not a rules version of libertalia")
    given = dict(version.flags)
    for flag, allowed in FLAGS.items():
        if given.get(flag) not in allowed:
            raise ValueError(f"{name}: flag {flag!r} must be one of {', '.join(allowed)}, not {given.get(flag)!r}")
    unknown = sorted(set(given) - set(FLAGS))
    if unknown:
        raise ValueError(f"{name}: libertalia has no rule flag {unknown[0]!r}")
    try:
        parsed = json.loads(data.content)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataError(f"{data.path}: not JSON: {error}") from None
    validate(parsed, data.path)
    return _rules(version, parsed, given)


def _rules(version: RulesVersion, data: dict[str, Any], flags: dict[str, str]) -> LibertaliaRules:
    characters = {
        c["rank"]: Character(
            c["rank"], c["name"], frozenset(c["timing"]), types.MappingProxyType(dict(c.get("numbers", {})))
        )
        for c in data["characters"]
    }
    timed = {t: frozenset(r for r, c in characters.items() if t in c.timing) for t in (DAY, DUSK, NIGHT, ANCHOR)}
    return LibertaliaRules(
        version=version,
        fingerprint=version.fingerprint(),
        characters=types.MappingProxyType(characters),
        loot_names=tuple(t["name"] for t in data["loot"]),
        loot_counts=tuple(t["count"] for t in data["loot"]),
        income=tuple(data["reputation_income"]),
        voyage_days=tuple(data["voyage_days"]),
        ranks_per_voyage=int(data["ranks_per_voyage"]),
        midshipman_key=float(data["midshipman_rank"]),
        board=types.MappingProxyType(dict(data["numbers"])),
        anchor=flags["anchor"],
        turns=flags["turns"],
        timed=types.MappingProxyType(timed),
    )


def loot_pb(loot: int) -> pb.LibertaliaLoot.ValueType:
    """The LibertaliaLoot enum value of loot index ``loot``."""
    return cast("pb.LibertaliaLoot.ValueType", loot + pb.LIBERTALIA_LOOT_MAP)
