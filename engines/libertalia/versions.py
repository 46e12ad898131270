"""The rules versions of this game, oldest first (see engines/rules.py and engines/README.md).

* ``libertalia/1``, the first release: at anchor every lone night Witch returns to hand as the anchor
  begins, only the anchor choices are queued and everything else (the First Mate's count, Stormy barrels)
  is netted at scoring; every seat's night and anchor abilities are queued together.
* ``libertalia/2``: anchor abilities whose order changes the result resolve in the order the seat
  chooses; seats take night and anchor turns in seat order, one EffectsQueued each.

Both read ``characters.json`` (libertalia/1's numbers were in its code, with the same values); the flags
(:data:`engines.libertalia.data.FLAGS`) select where their code differs. A released version never changes:
a correction of the data or of a rule is a new version here (a corrected copy of the data file, new flag
values), with its own golden transcript.
"""

from __future__ import annotations

from engines.libertalia.data import (
    ANCHOR_NETTED,
    ANCHOR_ORDERED,
    TURNS_SEAT_BY_SEAT,
    TURNS_TOGETHER,
    load_rules,
)
from engines.libertalia.game import Libertalia

__all__ = ["LIBERTALIA", "LIBERTALIA_1", "LIBERTALIA_2", "VERSIONS"]

LIBERTALIA_1 = Libertalia(
    load_rules("libertalia/1", "characters.json", {"anchor": ANCHOR_NETTED, "turns": TURNS_TOGETHER})
)
LIBERTALIA_2 = Libertalia(
    load_rules("libertalia/2", "characters.json", {"anchor": ANCHOR_ORDERED, "turns": TURNS_SEAT_BY_SEAT})
)

#: The current version: the one new games get (unless an operator pins another).
LIBERTALIA = LIBERTALIA_2

VERSIONS = (LIBERTALIA_1, LIBERTALIA_2)
