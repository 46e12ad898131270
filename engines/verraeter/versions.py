"""The rules versions of Verräter, oldest first (see engines/rules.py and engines/README.md).

Each is a game object built from its own data file; a released version never changes. ``VERRAETER`` (in
``engines.verraeter``) is the newest.
"""

from __future__ import annotations

from engines.verraeter.data import load_rules
from engines.verraeter.game import Verraeter

__all__ = ["VERSIONS"]

VERSIONS: tuple[Verraeter, ...] = (
    # The NGO edition's numbers, with the values shared/rules/verraeter.md marks as proposed.
    Verraeter(load_rules("verraeter/1", file="verraeter.json")),
)
