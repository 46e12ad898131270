"""decide_and_evolve: the state it computes while deciding is the state folding its events gives."""

from __future__ import annotations

import pytest

from engines.contract import fold, step
from engines.oldmen import OLDMEN
from engines.playout import play
from engines.snapshot import encode_state


@pytest.mark.parametrize("match_deals", ["1", "2"])
@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("seed", [b"evolve-1", b"evolve-2"])
def test_decided_state_is_the_folded_state(seats: int, match_deals: str, seed: bytes) -> None:
    """At every command of a seeded game: the same events as step(), and a state equal (and encoded the
    same) to folding those events onto the state before, through the end of each deal and of the match."""
    playout = play(OLDMEN, OLDMEN.spec.config(seats, {"match_deals": match_deals}), seed)
    state = fold(OLDMEN, playout.setup)
    assert state is not None
    for move in playout.moves:
        events, after = OLDMEN.decide_and_evolve(state, move.seat, move.command)
        assert events == step(OLDMEN, state, move.seat, move.command) == list(move.events)
        folded = fold(OLDMEN, events, state)
        assert after == folded
        assert encode_state(after) == encode_state(folded)
        state = after
    assert OLDMEN.is_over(state)
