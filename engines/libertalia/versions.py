"""The rules versions of this game, oldest first (see engines/rules.py and engines/README.md)."""

from __future__ import annotations

from engines.libertalia.game import LIBERTALIA

__all__ = ["VERSIONS"]

VERSIONS = (LIBERTALIA,)
