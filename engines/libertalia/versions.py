"""The rules versions of this game, oldest first (see engines/rules.py and engines/README.md).

A version is the engine code with the data file it reads and its rule flags
(:data:`engines.libertalia.data.FLAGS`). A released version never changes: a correction of the data or of
a rule is a new version here (a corrected copy of the data file, new flag values), with its own golden
transcript.
"""

from __future__ import annotations

from engines.libertalia.data import ANCHOR_ORDERED, TURNS_SEAT_BY_SEAT, load_rules
from engines.libertalia.game import Libertalia

__all__ = ["LIBERTALIA", "LIBERTALIA_2", "VERSIONS"]

LIBERTALIA_2 = Libertalia(
    load_rules("libertalia/2", "characters.json", {"anchor": ANCHOR_ORDERED, "turns": TURNS_SEAT_BY_SEAT})
)

#: The current version: the one new games get (unless an operator pins another).
LIBERTALIA = LIBERTALIA_2

VERSIONS = (LIBERTALIA_2,)
