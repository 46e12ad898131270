"""Saving orangutans and refilling the row (rules section 3, steps 6-8; D4, D5, D8, D9, D10, D13, D18)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from engines.contract import step
from engines.errors import IllegalCommandError, NotYourTurnError
from engines.oldmen import OLDMEN
from engines.oldmen.data import Card
from engines.oldmen.state import Phase, State
from tests.engines.oldmen.helpers import (
    ALL_ORANGUTANS,
    as_cards,
    card,
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

FIRST, SECOND, OTHER = 0, 1, 2
# Row of four players: O01 (1 yellow), O02 (1 red), O15 (2 red + 2 yellow), O16 (2 blue + 2 green), O05 (red + yellow)
ORDER = ("O01", "O02", "O15", "O16", "O05", "O03", "O04", *[o for o in ALL_ORANGUTANS if o > "O05"])


def _with_pools(state: State, pools: dict[int, tuple[Card, ...]]) -> State:
    """The state with cards won in earlier rounds waiting in the seats' pools."""
    players = list(state.players)
    for seat, pool in pools.items():
        players[seat] = replace(players[seat], pool=pool)
    return replace(state, players=tuple(players))


def _save_phase(
    won: tuple[str, str] = ("yellow 1", "red 2"),
    pools: dict[int, tuple[Card, ...]] | None = None,
    seats: int = 4,
    order: tuple[str, ...] = ORDER,
) -> State:
    """Seat 0 wins the trick and takes seat 2's card (``won[0]``); seat 1 is second and takes seat 3's (or 0's)."""
    played = ["blue 10", "blue 9", won[0], won[1]][:seats]
    hands = fill_hands(seats, {seat: [text] for seat, text in enumerate(played)})
    state = _with_pools(setup(hands, order=order), pools or {})
    state, _ = play_trick(state, *played)
    state, _ = run(state, [(FIRST, take(2)), (SECOND, take(3 if seats == 4 else 0))])
    assert state.phase is Phase.SAVE
    return state


def test_first_winner_decides_first_then_second() -> None:
    """After the takes the first winner saves or passes, then the second winner, then the next round starts."""
    state = _save_phase()
    assert OLDMEN.pending(state) == {FIRST}
    assert OLDMEN.legal_commands(state, FIRST)[0] == decline()
    state, _ = run(state, [(FIRST, decline())])
    assert state.phase is Phase.SAVE and OLDMEN.pending(state) == {SECOND}
    state, _ = run(state, [(SECOND, decline())])
    assert state.phase is Phase.PLAY


def test_first_winner_leads_next_round() -> None:
    """The first winner of a round leads the next one, and the round counter goes up by one (D13)."""
    hands = fill_hands(4, {0: ["red 1"], 1: ["red 2"], 2: ["red 10"], 3: ["red 3"]})
    state, _ = play_trick(setup(hands), "red 1", "red 2", "red 10", "red 3")
    state, _ = run(state, [(2, take(0)), (3, take(1)), (2, decline()), (3, decline())])
    assert state.leader == 2 and state.round == 2 and OLDMEN.pending(state) == {2}


def test_saving_is_optional_and_the_pool_carries_over() -> None:
    """A winner who could pay may pass; the won cards stay in the pool for later rounds."""
    state = _save_phase()
    assert save("O01") in OLDMEN.legal_commands(state, FIRST)
    state, events = run(state, [(FIRST, decline()), (SECOND, decline())])
    assert state.players[FIRST].pool == cards("yellow 1")
    assert state.players[SECOND].pool == cards("red 2")
    assert kinds(events) == ["save_declined", "save_declined"]
    assert state.row == ORDER[:5]


def test_save_spends_needed_cards_and_tucks_the_whole_rest_of_the_pool() -> None:
    """A save spends the needed colours and puts every other pool card, old or new, brown or not, under it (D9)."""
    earlier = cards("yellow 6", "red 4", "brown 3")
    state = _save_phase(pools={FIRST: earlier})
    state, events = run(state, [(FIRST, save("O01"))])
    saved = of_kind(events, "orangutan_saved")[0].orangutan_saved
    spent, tucked = as_cards(saved.spent), as_cards(saved.tucked)
    assert len(spent) == 1 and spent[0].colour == card("yellow 1").colour
    assert Counter(spent + tucked) == Counter((*earlier, card("yellow 1")))
    player = state.players[FIRST]
    assert player.pool == ()
    assert [(s.orangutan.id, Counter(s.tucked)) for s in player.saved] == [("O01", Counter(tucked))]
    assert state.discard[-1:] == tuple(spent)
    assert player.score(state.rules) == 3 - 1 - 1 - 2  # surplus yellow, red, brown


def test_funding_counts_colours_and_ignores_values() -> None:
    """An orangutan needing 2 red and 2 yellow is paid by the lowest values of those colours (D18)."""
    state = _save_phase(pools={FIRST: cards("red 1", "yellow 2", "red 3")})
    state, events = run(state, [(FIRST, save("O15"))])
    saved = of_kind(events, "orangutan_saved")[0].orangutan_saved
    assert Counter(as_cards(saved.spent)) == Counter(cards("red 1", "red 3", "yellow 1", "yellow 2"))
    assert saved.tucked == []
    assert state.players[FIRST].score(state.rules) == 15


def test_high_values_of_the_wrong_colour_do_not_pay() -> None:
    """Cards of high value cannot stand in for a missing colour."""
    state = _save_phase(pools={FIRST: cards("red 10", "red 9", "yellow 10")})
    assert save("O15") in OLDMEN.legal_commands(state, FIRST)
    state = _save_phase(pools={FIRST: cards("blue 10", "green 10", "red 10")})
    assert save("O15") not in OLDMEN.legal_commands(state, FIRST)
    with pytest.raises(IllegalCommandError, match="cannot pay for orangutan O15: it needs 2 red and 2 yellow"):
        step(OLDMEN, state, FIRST, save("O15"))


def test_brown_cards_never_pay() -> None:
    """Brown cards count for no colour, so a pool of brown cards can save nothing (D4)."""
    state = _save_phase(won=("brown 1", "brown 2"), pools={FIRST: cards("brown 9", "brown 10")})
    assert OLDMEN.legal_commands(state, FIRST) == [decline()]
    for orangutan_id in state.row:
        with pytest.raises(IllegalCommandError, match="cannot pay"):
            step(OLDMEN, state, FIRST, save(orangutan_id))


def test_only_the_two_winners_may_save() -> None:
    """A seat that won no card this round never gets to save, even if its pool could pay (D8)."""
    state = _save_phase(pools={OTHER: cards("yellow 5", "red 5")})
    assert OLDMEN.legal_commands(state, OTHER) == []
    with pytest.raises(NotYourTurnError):
        step(OLDMEN, state, OTHER, save("O01"))
    state, _ = run(state, [(FIRST, decline())])
    with pytest.raises(NotYourTurnError):
        step(OLDMEN, state, OTHER, save("O01"))
    state, _ = run(state, [(SECOND, decline())])
    assert state.phase is Phase.PLAY and state.players[OTHER].saved == ()


def test_each_winner_saves_at_most_one_orangutan() -> None:
    """After a save the turn passes on; the same winner cannot save a second orangutan this round."""
    state = _save_phase(pools={FIRST: cards("red 5", "red 6", "yellow 6")})
    state, _ = run(state, [(FIRST, save("O01"))])
    assert OLDMEN.pending(state) == {SECOND}
    assert OLDMEN.legal_commands(state, FIRST) == []
    with pytest.raises(NotYourTurnError):
        step(OLDMEN, state, FIRST, save("O02"))


def test_row_is_not_refilled_between_the_two_decisions() -> None:
    """If the first winner saves, the second chooses from the smaller row; the refill comes after both (D5)."""
    state = _save_phase(pools={SECOND: cards("yellow 3")})
    state, events = run(state, [(FIRST, save("O01"))])
    assert kinds(events) == ["orangutan_saved"]
    assert state.row == ("O02", "O15", "O16", "O05")
    with pytest.raises(IllegalCommandError, match="O01 is not in the row"):
        step(OLDMEN, state, SECOND, save("O01"))
    assert save("O01") not in OLDMEN.legal_commands(state, SECOND)


def test_row_is_refilled_to_n_plus_1_from_the_top_of_the_deck() -> None:
    """After both decisions, orangutans are drawn from the deck in order until the row has N+1 cards again."""
    state = _save_phase()
    deck = state.deck
    state, events = run(state, [(FIRST, save("O01")), (SECOND, save("O02"))])
    assert kinds(events) == ["orangutan_saved", "orangutan_saved", "orangutans_revealed"]
    assert list(events[-1].orangutans_revealed.orangutan_ids) == list(deck[:2])
    assert state.row == ("O15", "O16", "O05", *deck[:2])
    assert state.deck == deck[2:]
    assert OLDMEN.view(state, None).deck_count == len(deck) - 2


def test_short_deck_refills_as_far_as_it_can() -> None:
    """When the deck runs out the row stays short and is never refilled from anywhere else (D10)."""
    state = replace(_save_phase(), deck=("O16",))
    state = replace(state, row=("O01", "O02", "O15", "O05", "O03"))
    state, events = run(state, [(FIRST, save("O01")), (SECOND, save("O02"))])
    assert list(events[-1].orangutans_revealed.orangutan_ids) == ["O16"]
    assert state.row == ("O15", "O05", "O03", "O16") and state.deck == ()
    view = OLDMEN.view(state, None)
    assert len(view.row) == 4 and view.deck_count == 0


def test_empty_deck_draws_nothing() -> None:
    """With an empty deck a save leaves a gap and no refill event is written."""
    state = replace(_save_phase(), deck=())
    state, events = run(state, [(FIRST, save("O01")), (SECOND, decline())])
    assert kinds(events) == ["orangutan_saved", "save_declined"]
    assert len(state.row) == 4


def test_row_may_shrink_to_nothing_and_then_no_one_can_save() -> None:
    """With an empty row and deck the winners can only pass (D10)."""
    state = replace(_save_phase(seats=3, pools={SECOND: cards("yellow 9")}), row=("O01",), deck=())
    state, _ = run(state, [(FIRST, save("O01"))])
    assert state.row == ()
    assert OLDMEN.legal_commands(state, SECOND) == [decline()]
    with pytest.raises(IllegalCommandError, match="not in the row"):
        step(OLDMEN, state, SECOND, save("O01"))
    state, events = run(state, [(SECOND, decline())])
    assert state.row == () and state.phase is Phase.PLAY
    assert "orangutans_revealed" not in kinds(events)
