"""The worked example of rules section 8 (from the SEED), played command by command through the engine."""

from __future__ import annotations

import pytest

from engines.contract import step
from engines.errors import IllegalCommandError
from engines.oldmen import OLDMEN
from engines.oldmen.state import Phase, State
from tests.engines.oldmen.helpers import (
    as_cards,
    cards,
    decline,
    fill_hands,
    kinds,
    of_kind,
    play_trick,
    run,
    save,
    setup,
    take,
)

A, B, C, D = 0, 1, 2, 3
ROW = ("O01", "O05", "O06", "O15", "O16")
DECK_REST = ("O02", "O03", "O04", "O07", "O08", "O09", "O10", "O11", "O12", "O13", "O14")


def _before_example() -> State:
    """Round 1 gives C a green card and leaves A to lead round 2 with B's pool empty."""
    hands = fill_hands(
        4,
        {
            A: ["red 10", "red 3"],
            B: ["brown 1", "yellow 8"],
            C: ["yellow 9", "red 5"],
            D: ["green 2", "blue 5"],
        },
    )
    state = setup(hands, start_seat=A, order=ROW + DECK_REST)
    state, _ = play_trick(state, "red 10", "brown 1", "yellow 9", "green 2")
    state, _ = run(state, [(A, take(C)), (C, take(D)), (A, decline()), (C, decline())])
    assert state.leader == A and state.round == 2
    assert state.players[B].pool == () and state.players[C].pool == cards("green 2")
    return state


def test_section_8_worked_example() -> None:
    """The SEED example: B and C win, B takes blue 5 and passes, C takes yellow 8 and saves O01, B leads next."""
    state = _before_example()

    state, events = play_trick(state, "red 3", "yellow 8", "red 5", "blue 5")
    ranked = of_kind(events, "trick_ranked")[0].trick_ranked
    assert (ranked.first_seat, ranked.second_seat) == (B, C)  # C's 5 came before D's 5
    assert OLDMEN.pending(state) == {B}

    state, events = run(state, [(B, take(D)), (C, take(B))])
    assert state.players[B].pool == cards("blue 5")
    assert state.players[C].pool == cards("green 2", "yellow 8")
    assert as_cards(of_kind(events, "cards_discarded")[0].cards_discarded.cards) == list(cards("red 3", "red 5"))

    assert OLDMEN.legal_commands(state, B) == [decline()]  # blue 5 pays for nothing in the row
    state, _ = run(state, [(B, decline())])

    state, events = run(state, [(C, save("O01"))])
    saved = of_kind(events, "orangutan_saved")[0].orangutan_saved
    assert as_cards(saved.spent) == list(cards("yellow 8"))
    assert as_cards(saved.tucked) == list(cards("green 2"))
    assert state.players[C].pool == ()
    assert [s.orangutan.id for s in state.players[C].saved] == ["O01"]
    assert state.discard[-1:] == cards("yellow 8")

    assert len(state.row) == 5 and state.row[:4] == ROW[1:] and state.row[4] == DECK_REST[0]
    assert state.phase is Phase.PLAY and state.round == 3 and state.leader == B
    assert OLDMEN.pending(state) == {B}
    assert kinds(events) == ["orangutan_saved", "orangutans_revealed"]

    assert state.players[C].score(state.rules) == 3 - 1
    assert state.players[B].score(state.rules) == -1


def test_section_8_example_refuses_b_saving_with_blue() -> None:
    """In the example B's blue 5 cannot pay for any orangutan in the row, so B's save is refused."""
    state = _before_example()
    state, _ = play_trick(state, "red 3", "yellow 8", "red 5", "blue 5")
    state, _ = run(state, [(B, take(D)), (C, take(B))])
    for orangutan_id in ROW:
        with pytest.raises(IllegalCommandError, match="cannot pay"):
            step(OLDMEN, state, B, save(orangutan_id))
