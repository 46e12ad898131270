"""The rules versions of this game, oldest first (see engines/rules.py and engines/README.md)."""

from __future__ import annotations

from engines.oldmen.game import OLDMEN

__all__ = ["VERSIONS"]

VERSIONS = (OLDMEN,)
