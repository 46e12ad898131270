"""The table of every kind of choice, gathered from the ability modules."""

from __future__ import annotations

from engines.libertalia.abilities.day import DAY_PROMPTS
from engines.libertalia.abilities.loot import LOOT_PROMPTS
from engines.libertalia.abilities.night import NIGHT_PROMPTS
from engines.libertalia.abilities.order import ORDER_PROMPTS
from engines.libertalia.abilities.prompting import PromptSpec

__all__ = ["PROMPTS"]

PROMPTS: dict[int, PromptSpec] = {**DAY_PROMPTS, **LOOT_PROMPTS, **NIGHT_PROMPTS, **ORDER_PROMPTS}
