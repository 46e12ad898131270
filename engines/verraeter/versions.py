"""The rules versions of this game, oldest first (see engines/rules.py and engines/README.md)."""

from __future__ import annotations

from engines.verraeter.game import VERRAETER

__all__ = ["VERSIONS"]

VERSIONS = (VERRAETER,)
