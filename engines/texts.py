"""What a game's components are called and what they do, in sentences, for people: a catalogue per rules
version, from templates in ``engines/<game>/texts.json`` filled with that version's numbers, so a corrected
data file (a new rules version) corrects the texts with no code change.

The texts decide nothing: they are not part of a rules version's fingerprint, and correcting a sentence
needs no new version. Each game's ``engines/<game>/catalog.py`` gives ``catalog(rules) -> Catalog``.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["Catalog", "Entry", "fill", "load_texts"]


@dataclass(frozen=True)
class Entry:
    """One component: its kind (``character``, ``loot``, ``land``, ...), its id within the kind (as the
    game's messages name it: a rank, a card id, an enum name), its name, what it does in one sentence, and
    a longer description (the rule in full)."""

    kind: str
    id: str
    name: str
    effect: str
    description: str


@dataclass(frozen=True)
class Catalog:
    """Every component of one rules version, and one "what to do now" line per phase (by the phase's enum
    name)."""

    entries: tuple[Entry, ...]
    phases: tuple[tuple[str, str], ...]


def load_texts(package: str) -> dict[str, Any]:
    """The templates of ``engines/<game>/texts.json`` of the engine package ``package``."""
    texts: dict[str, Any] = json.loads(resources.files(package).joinpath("texts.json").read_text(encoding="utf-8"))
    return texts


def fill(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with each ``{name}`` (or ``{name[i]}``) replaced from ``values``. Raises ValueError
    naming a placeholder ``values`` lacks, so a template that no longer matches its data cannot go
    unnoticed."""
    try:
        return string.Formatter().vformat(template, (), dict(values))
    except (KeyError, IndexError) as missing:
        raise ValueError(f"the text {template[:60]!r} names {missing}, which the rules' data lacks") from None
