"""Seeded self-play through the engine contract, for tests, benchmarks and golden transcripts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engines.contract import AnyGame, GameConfig, advance, fold
from engines.prng import Prng

__all__ = ["Move", "Playout", "play", "random_chooser"]

# Picks (seat, command) among the pending seats' legal commands: (game, state, pending) -> (seat, command).
Chooser = Callable[[AnyGame, Any, list[int]], tuple[int, Any]]


@dataclass(frozen=True)
class Move:
    """One accepted command and the events it caused."""

    seat: int
    command: Any
    events: tuple[Any, ...]


@dataclass
class Playout:
    """A whole game: setup events, then every move, and the final state."""

    setup: list[Any]
    moves: list[Move] = field(default_factory=list)
    state: Any = None

    @property
    def events(self) -> list[Any]:
        """Every event of the game in log order."""
        return self.setup + [e for move in self.moves for e in move.events]


def random_chooser(seed: bytes) -> Chooser:
    """A chooser that picks a pending seat and one of its legal commands uniformly, from its own PRNG."""
    prng = Prng(seed, "playout")

    def choose(game: AnyGame, state: Any, pending: list[int]) -> tuple[int, Any]:
        seat = prng.choice(pending)
        return seat, prng.choice(game.legal_commands(state, seat))

    return choose


def play(
    game: AnyGame, config: GameConfig, seed: bytes, chooser: Chooser | None = None, max_moves: int = 100_000
) -> Playout:
    """Play a game from ``seed`` to its end, every move picked by ``chooser`` (default: random, seeded
    from ``seed``). Raises RuntimeError if the game is not over after ``max_moves`` moves."""
    choose = chooser or random_chooser(seed)
    playout = Playout(setup=game.start(config, seed))
    state = fold(game, playout.setup)
    while not game.is_over(state):
        if len(playout.moves) >= max_moves:
            raise RuntimeError(f"{game.spec.name} did not end after {max_moves} moves")
        seat, command = choose(game, state, sorted(game.pending(state)))
        events, state = advance(game, state, seat, command)
        playout.moves.append(Move(seat, command, tuple(events)))
    playout.state = state
    return playout
