"""Libertalia: Winds of Galecrest (Paolo Mori, 2022) for 2-6 players, Calm, Stormy or Uncharted loot.

``LIBERTALIA`` is the current rules version (libertalia/2); ``versions.VERSIONS`` lists every one.
"""

from engines.libertalia.game import Libertalia
from engines.libertalia.versions import LIBERTALIA, LIBERTALIA_1, LIBERTALIA_2

__all__ = ["LIBERTALIA", "LIBERTALIA_1", "LIBERTALIA_2", "Libertalia"]
