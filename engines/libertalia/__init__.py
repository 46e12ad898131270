"""Libertalia: Winds of Galecrest (Paolo Mori, 2022) for 2-6 players, Calm, Stormy or Uncharted loot."""

from engines.libertalia.game import LIBERTALIA, Libertalia

__all__ = ["LIBERTALIA", "Libertalia"]
