"""Old Men of the Forest's components in sentences (see :mod:`engines.texts`): the five colours of player
cards and every orangutan of the rules version's table, and a line per phase."""

from __future__ import annotations

from collections import Counter

from engines.oldmen.data import COLOURS, OldmenRules, colour_name
from engines.texts import Catalog, Entry, fill, load_texts

__all__ = ["catalog"]

_TEXTS = load_texts(__package__)


def catalog(rules: OldmenRules) -> Catalog:
    """Every component of ``rules``' version, named and explained."""
    numbers = {"penalty": rules.penalty, "brown_penalty": rules.brown_penalty}
    entries = []
    for colour in COLOURS:
        name = colour_name(colour)
        effect, description = _TEXTS["colours"][name]
        entries.append(Entry("colour", name, f"{name} cards", fill(effect, numbers), fill(description, numbers)))
    effect, description = _TEXTS["orangutan"]
    for orangutan in rules.orangutans:
        counts = Counter(colour_name(c) for c in orangutan.needs)
        needs = " + ".join(f"{n} {colour}" for colour, n in counts.items())
        values = {"vp": orangutan.vp, "needs": needs}
        name = f"{orangutan.vp} VP orangutan"
        entries.append(Entry("orangutan", orangutan.id, name, fill(effect, values), fill(description, values)))
    return Catalog(tuple(entries), tuple(_TEXTS["phases"].items()))
