"""Invariants over random games: loot is conserved, every dealt card is in exactly one place."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.contract import fold, step
from engines.libertalia.state import State
from engines.prng import Prng
from tests.engines.libertalia.helpers import G


def _check(state: State) -> None:
    tokens = sum(state.bag) + sum(len(box) for box in state.boxes) + sum(p.loot_count for p in state.players)
    assert tokens == 48
    for seat, player in enumerate(state.players):
        places = [*player.hand, *player.ship, *player.graveyard, *(c.rank for c in state.island if c.seat == seat)]
        assert sorted(places) == sorted(set(places)), f"seat {seat} holds a card twice"
        assert set(places) <= set(state.dealt)
        assert set(player.kept) <= set(player.ship) and player.doubloons >= 0
    assert sorted(s for s in state.reputation if s >= 0) == list(range(state.seats)) and len(state.reputation) == 6


@settings(max_examples=25, deadline=None)
@given(
    seats=st.integers(min_value=2, max_value=6),
    board=st.sampled_from(["calm", "stormy", "uncharted"]),
    seed=st.binary(min_size=1, max_size=8),
)
def test_random_games_keep_loot_and_cards_consistent(seats: int, board: str, seed: bytes) -> None:
    """After every command of a random game the 48 tokens and each seat's dealt cards are all accounted for."""
    state = fold(G, G.start(G.spec.config(seats, {"board": board}), seed))
    prng = Prng(seed, "invariants")
    while not G.is_over(state):
        seat = prng.choice(sorted(G.pending(state)))
        state = fold(G, step(G, state, seat, prng.choice(G.legal_commands(state, seat))), state)
        _check(state)
    assert len(state.dealt) == 18
