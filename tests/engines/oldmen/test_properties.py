"""Properties of whole games under arbitrary legal play (Hypothesis picks the seed, seat count and every move)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.contract import fold, step
from engines.oldmen import OLDMEN
from engines.oldmen.data import Card
from engines.oldmen.state import Phase, State
from parlour.v1 import oldmen_pb2 as pb


def _cards_in_play(state: State) -> Counter[Card]:
    """Every card of the deal: hands, the trick's cards not yet taken or discarded, pools, tucked, discarded."""
    held: list[Card] = list(state.discard)
    if state.phase in (Phase.PLAY, Phase.TAKE):
        held += [c for s, c in state.trick if s not in state.taken]
    for player in state.players:
        held += list(player.hand) + list(player.pool) + [c for s in player.saved for c in s.tucked]
    return Counter(held)


def _check(state: State, dealt: Counter[Card]) -> None:
    seats = state.seats
    assert _cards_in_play(state) == dealt
    in_hands = sum(len(p.hand) for p in state.players)
    if state.phase is Phase.PLAY:
        assert in_hands + len(state.trick) == seats * (11 - state.round)
    elif state.phase is Phase.OVER:
        assert in_hands == 0
    else:
        assert in_hands == seats * (10 - state.round)
    saved = [s.orangutan.id for p in state.players for s in p.saved]
    assert Counter(saved + list(state.row) + list(state.deck)) == Counter(o.id for o in state.rules.orangutans)
    if state.phase is Phase.PLAY and not state.trick:
        assert len(state.row) == min(seats + 1, len(state.row) + len(state.deck))
    pending = OLDMEN.pending(state)
    assert len(pending) == (0 if OLDMEN.is_over(state) else 1)
    for seat in range(seats):
        assert bool(OLDMEN.legal_commands(state, seat)) == (seat in pending)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=1, max_size=8), seats=st.sampled_from([3, 4]), data=st.data())
def test_cards_and_orangutans_are_conserved(seed: bytes, seats: int, data: st.DataObject) -> None:
    """Under any legal play no card or orangutan appears or vanishes, and exactly one seat is due until the end."""
    events = OLDMEN.start(OLDMEN.spec.config(seats), seed)
    state = fold(OLDMEN, events)
    assert state is not None
    dealt = Counter(c for p in state.players for c in p.hand)
    while not OLDMEN.is_over(state):
        _check(state, dealt)
        (seat,) = OLDMEN.pending(state)
        command: pb.OldmenCommand = data.draw(st.sampled_from(OLDMEN.legal_commands(state, seat)))
        for event in step(OLDMEN, state, seat, command):
            state = OLDMEN.evolve(state, event)
    _check(state, dealt)
