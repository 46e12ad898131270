"""Libertalia's components in sentences (see :mod:`engines.texts`): the 40 characters and the Midshipman,
the loot tokens on both sides of the board, the reputation track's spaces and dummies, and a line per
phase; every number from the rules version's data."""

from __future__ import annotations

from engines.libertalia.data import LibertaliaRules
from engines.texts import Catalog, Entry, fill, load_texts

__all__ = ["catalog"]

_TEXTS = load_texts(__package__)
_SPACES = 6  # reputation tokens on the track, dummies included (rules 1.2)


def catalog(rules: LibertaliaRules) -> Catalog:
    """Every component of ``rules``' version, named and explained."""
    entries = [_character(rules, rank) for rank in sorted(rules.characters)]
    effect, description = _TEXTS["midshipman"]
    entries.append(Entry("character", "0", "Midshipman", effect, description))
    for loot in rules.loot_names:
        for side in ("calm", "stormy"):
            effect, description = _TEXTS["loot"][loot][side]
            name = f"{loot} ({side})"
            entries.append(
                Entry("loot", f"{loot}:{side}", name, fill(effect, rules.board), fill(description, rules.board))
            )
    effect, description = _TEXTS["track"]
    for space in range(1, _SPACES + 1):
        values = {"space": space, "spaces": _SPACES}
        entries.append(Entry("track_space", str(space), f"space {space}", fill(effect, values), description))
    effect, description = _TEXTS["dummy"]
    entries.append(Entry("track_space", "dummy", "dummy token", effect, description))
    return Catalog(tuple(entries), tuple(_TEXTS["phases"].items()))


def _character(rules: LibertaliaRules, rank: int) -> Entry:
    character = rules.characters[rank]
    effect, description = _TEXTS["characters"][str(rank)]
    values = dict(character.numbers)
    return Entry("character", str(rank), character.name, fill(effect, values), fill(description, values))
