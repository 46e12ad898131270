"""Every chance outcome of Libertalia, drawn from :class:`engines.prng.Prng` streams of the game's seed
and then written into events (so a replay needs no generator)."""

from __future__ import annotations

from engines.libertalia.data import TYPES
from engines.prng import Prng

__all__ = ["bag_tokens", "deal_ranks", "weighted_draw"]


def bag_tokens(bag: tuple[int, ...]) -> list[int]:
    """The bag's tokens as a list of types, in type order."""
    return [loot for loot in range(TYPES) for _ in range(bag[loot])]


def weighted_draw(seed: bytes, draw: int, bag: tuple[int, ...]) -> int:
    """The type of one token drawn at random from ``bag`` (stream ``draw/<n>``); -1 if the bag is empty."""
    tokens = bag_tokens(bag)
    if not tokens:
        return -1
    return tokens[Prng(seed, "draw", str(draw)).below(len(tokens))]


def deal_ranks(prng: Prng, dealt: tuple[int, ...], count: int) -> list[int]:
    """``count`` ranks (six) not dealt yet in this game, sorted."""
    remaining = [rank for rank in range(1, 41) if rank not in dealt]
    return sorted(prng.shuffled(remaining)[:count])
