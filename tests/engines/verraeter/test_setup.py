"""Setup of Verräter (rules section 2): seats and houses, lands, supply, setup estates, seed."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.contract import commit_seed, fold
from engines.errors import IllegalCommandError
from engines.verraeter import VERRAETER
from engines.verraeter.data import EAGLE, ESTATE, ROSE, TRADING_POST
from engines.verraeter.state import Phase
from tests.engines.verraeter.helpers import act, first, new_game, place


def _start(seats: int, **options: str) -> list:  # type: ignore[type-arg]  # setup events of any message type
    return VERRAETER.start(VERRAETER.spec.config(seats, options), b"setup-test")


@pytest.mark.parametrize(("seats", "rounds", "lands", "supply"), [(3, 9, 12, 23), (4, 8, 12, 23), (5, 10, 14, 27)])
def test_player_count_sets_rounds_lands_and_supply(seats: int, rounds: int, lands: int, supply: int) -> None:
    """3/4/5 seats play 9/8/10 rounds with 12/12/14 lands and a supply of 23/23/27 cards (D1, D16, D17)."""
    state = fold(VERRAETER, _start(seats))
    assert state.rounds == rounds
    assert state.ring == lands
    assert len(state.deck) + sum(len(p.hand) for p in state.players) == supply
    assert Counter(land.house for land in state.lands) == {EAGLE: lands // 2, ROSE: lands // 2}
    assert all(len(p.hand) == 3 and p.reserve == 3 for p in state.players)


def test_five_player_game_uses_the_marked_cards() -> None:
    """With 5 seats the two marked lands and four marked supply cards are in play; with 4 they are not."""
    five = fold(VERRAETER, _start(5))
    four = fold(VERRAETER, _start(4))
    assert {land.card_id for land in five.lands} >= {"land5p-A", "land5p-B"}
    assert not any(land.card_id.startswith("land5p") for land in four.lands)
    values = Counter(five.deck) + Counter(v for p in five.players for v in p.hand)
    assert values == Counter({2: 6, 3: 6, 4: 6, 5: 6, 6: 2, 8: 1})


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_houses_alternate_from_the_start_player(seats: int) -> None:
    """Houses go Eagle, Rose, Eagle... clockwise from the start player; the seat to his left is strategist (D3)."""
    state = fold(VERRAETER, _start(seats))
    for i in range(seats):
        expected = EAGLE if i % 2 == 0 else ROSE
        assert state.players[state.seat_after(state.start_seat, i)].house == expected
    assert state.strategist == state.seat_after(state.start_seat)
    assert state.phase is Phase.SETUP_ESTATES


def test_random_layout_keeps_each_card_on_its_starting_face() -> None:
    """Random layout shuffles both sets without turning a card: set A is Eagle, set B Rose (D5)."""
    state = fold(VERRAETER, _start(4))
    assert all(land.house == (EAGLE if land.card_id.endswith("-A") else ROSE) for land in state.lands)


def test_alternating_layout_alternates_houses_around_the_ring() -> None:
    """The alternating option lays Eagle and Rose lands in turn around the ring (D5)."""
    state = fold(VERRAETER, _start(5, land_layout="alternating"))
    assert all(state.is_contested(p) for p in range(state.ring))


def test_classic_start_hand_is_three_four_five() -> None:
    """The classic option gives every seat one 3, one 4 and one 5 (D2)."""
    state = fold(VERRAETER, _start(4, start_hand="classic"))
    assert all(p.hand == (3, 4, 5) for p in state.players)
    assert len(state.deck) == 23 - 12


def test_first_event_commits_to_the_seed_and_redaction_hides_it() -> None:
    """The first event carries the seed's commitment; every seat's copy lacks the seed while the game runs."""
    events = _start(3)
    started = events[0].game_started
    assert started.seed_commitment == commit_seed(b"setup-test", started.rules_version)
    assert VERRAETER.redact(events[0], 0).game_started.seed == b""
    assert VERRAETER.redact(events[0], 0, finished=True).game_started.seed == b"setup-test"


def test_setup_estates_are_placed_in_turn_from_the_start_player() -> None:
    """Each seat in turn from the start player places one estate under a land without a building (D6)."""
    state = fold(VERRAETER, _start(3))
    first_seat = state.start_seat
    assert VERRAETER.pending(state) == {first_seat}
    state, events = act(state, first_seat, place(0))
    assert first(events, "building_placed").position == 0  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert VERRAETER.pending(state) == {state.seat_after(first_seat)}
    assert state.players[first_seat].reserve == 2


def test_setup_estate_must_be_estate_side_on_a_free_land() -> None:
    """A trading post or an occupied land is rejected at setup with a sentence, and nothing changes."""
    state = fold(VERRAETER, _start(3))
    seat = state.start_seat
    with pytest.raises(IllegalCommandError, match="estate side up"):
        act(state, seat, place(0, TRADING_POST))
    state, _ = act(state, seat, place(0))
    with pytest.raises(IllegalCommandError, match="already has a building"):
        act(state, state.seat_after(seat), place(0))
    legal = VERRAETER.legal_commands(state, state.seat_after(seat))
    assert len(legal) == state.ring - 1
    assert all(c.place_building.side == ESTATE for c in legal)


def test_after_the_last_setup_estate_the_strategist_chooses() -> None:
    """Once every seat has placed its estate, the strategist must choose the battlefield."""
    state = new_game(4)
    assert state.phase is Phase.BATTLEFIELD
    assert VERRAETER.pending(state) == {state.strategist}
