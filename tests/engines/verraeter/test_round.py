"""Phases 1-6 of a Verräter round: battlefield, draft, supply, reveal, conflict and VP (rules 3.1-3.6)."""

from __future__ import annotations

import pytest

from engines.errors import IllegalCommandError, MalformedCommandError
from engines.verraeter import VERRAETER
from engines.verraeter.data import EAGLE, ROSE
from engines.verraeter.flow import Chain, advance
from engines.verraeter.state import Phase, replace
from parlour.v1 import verraeter_pb2 as pb
from tests.engines.verraeter.helpers import (
    BUILDER,
    DIPLOMAT2,
    DIPLOMAT5,
    FARMER,
    STRATEGIST,
    TRAITOR,
    act,
    battlefield,
    drafted,
    first,
    kinds,
    new_game,
    play_all,
    supply,
    take,
)

# --- phase 1: battlefield ---------------------------------------------------------------------------


def test_only_neighbours_of_different_houses_are_legal_battlefields() -> None:
    """The strategist may choose exactly the adjacent pairs held by different houses."""
    state = new_game(4)
    legal = [c.choose_battlefield.position for c in VERRAETER.legal_commands(state, 1)]
    assert legal == [p for p in range(12) if state.is_contested(p)]
    assert 8 not in legal  # river-8 (Rose) next to forest-9 (Rose)
    with pytest.raises(IllegalCommandError, match="both belong to the Rose"):
        act(state, 1, battlefield(8))
    with pytest.raises(MalformedCommandError, match="from 0 to 11"):
        act(state, 1, battlefield(12))


def test_choosing_the_battlefield_starts_the_draft_with_the_start_player() -> None:
    """After the battlefield is chosen the start player receives the packet: every card but the hidden one."""
    state = new_game(4)
    state, events = act(state, 1, battlefield(0))
    shuffled = first(events, "action_cards_shuffled")
    packet = first(events, "packet_passed")
    assert packet.seat == 0 and packet.count == 5  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert shuffled.order[0] not in packet.cards  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert state.phase is Phase.DRAFT and VERRAETER.pending(state) == {0}


# --- phase 2: draft ---------------------------------------------------------------------------------


def test_taking_a_card_passes_the_rest_to_the_left() -> None:
    """A seat takes one card from its packet and the rest goes to the seat on its left."""
    state, _ = act(new_game(4), 1, battlefield(0))
    card = state.packet[0]
    state, events = act(state, 0, take(card))
    assert state.players[0].action == card
    assert first(events, "packet_passed").seat == 1  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert card not in state.packet and len(state.packet) == 4


def test_a_card_not_in_the_packet_is_rejected_without_naming_hidden_cards() -> None:
    """Taking a card that is not in one's packet is illegal; the sentence speaks only of one's own packet."""
    state, _ = act(new_game(4), 1, battlefield(0))
    hidden = state.action_order[0]
    with pytest.raises(IllegalCommandError, match="not in the packet you hold") as error:
        act(state, 0, take(hidden))
    assert "hidden" not in str(error.value)
    with pytest.raises(MalformedCommandError):
        act(state, 0, take(0))


@pytest.mark.parametrize(("seats", "leftovers"), [(3, 2), (4, 1), (5, 0)])
def test_draft_leaves_the_right_number_of_cards(seats: int, leftovers: int) -> None:
    """After the draft every seat has one card; 2 / 1 / 0 cards are left over besides the hidden one."""
    state, _ = act(new_game(seats, estates=list(range(2, 2 + seats))), 1, battlefield(0))
    while state.phase is Phase.DRAFT:
        state, _ = act(state, state.packet_seat, take(state.packet[-1]))
    assert all(p.action for p in state.players)
    assert len(state.leftovers) == leftovers
    assert state.phase is Phase.SUPPLY and VERRAETER.pending(state) == {state.start_seat}


def test_five_player_last_seat_gets_the_single_card_without_a_choice() -> None:
    """At 5 seats the fifth seat is passed a single card and takes it at once (no command)."""
    state, _ = act(new_game(5, estates=[2, 3, 4, 5, 6]), 1, battlefield(0))
    for seat in range(3):
        state, _ = act(state, seat, take(state.packet[0]))
    state, events = act(state, 3, take(state.packet[0]))
    taken = [e.action_card_taken for e in events if e.WhichOneof("kind") == "action_card_taken"]
    assert [t.seat for t in taken] == [3, 4] and taken[1].forced
    assert state.phase is Phase.SUPPLY


# --- phase 3: supply --------------------------------------------------------------------------------


def _supply_state(**kwargs: object):  # type: ignore[no-untyped-def]  # a scenario state built from keyword overrides
    actions = {0: BUILDER, 1: DIPLOMAT2, 2: FARMER, 3: DIPLOMAT5}
    return drafted(new_game(4, **kwargs), 0, actions, hidden=TRAITOR)


def test_supply_is_played_in_turn_from_the_start_player() -> None:
    """Seats play supply cards once each, clockwise from the start player; plays are public at once."""
    state = _supply_state()
    assert VERRAETER.pending(state) == {0}
    state, _ = act(state, 0, supply(3, 5))
    assert state.players[0].played == (3, 5) and state.players[0].hand == (4,)
    assert VERRAETER.view(state, 2).seats[0].played == [3, 5]
    assert VERRAETER.pending(state) == {1}


def test_supply_subsets_are_listed_once_per_distinct_multiset() -> None:
    """Equal values give one legal play each: a hand 3, 3, 3, 5 has 8 distinct plays, nothing first."""
    state = _supply_state(hands=[[3, 3, 3, 5], [3], [3], [3]])
    legal = [tuple(c.play_supply.values) for c in VERRAETER.legal_commands(state, 0)]
    assert legal[0] == ()
    assert sorted(legal) == sorted({(), (3,), (5,), (3, 3), (3, 5), (3, 3, 3), (3, 3, 5), (3, 3, 3, 5)})


def test_at_most_five_supply_cards_and_only_cards_in_hand() -> None:
    """Playing six cards or a value one does not hold is illegal and changes nothing."""
    state = _supply_state(hands=[[2, 2, 3, 3, 4], [3], [3], [3]])
    with pytest.raises(IllegalCommandError, match="at most 5"):
        act(state, 0, supply(2, 2, 3, 3, 4, 4))
    with pytest.raises(IllegalCommandError, match="you do not hold 8"):
        act(state, 0, supply(8))
    with pytest.raises(MalformedCommandError):
        act(state, 0, supply(0))
    assert len(VERRAETER.legal_commands(state, 0)) == 18


def test_supply_values_may_come_in_any_order() -> None:
    """A play names values in any order; the event lists them ascending."""
    state = _supply_state()
    _, events = act(state, 0, supply(5, 3))
    assert list(first(events, "supply_played").values) == [3, 5]  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message


# --- phases 4-6: reveal, conflict, VP ---------------------------------------------------------------


def test_rules_test_vector_with_diplomats_held_by_rose() -> None:
    """Rules test vector: Eagle river (5) vs Rose village (10), no supply, Traitor hidden, Strategist left
    over: Rose wins, the river flips to Rose, each of the 2 Rose seats gains VP(river, 2) = 4."""
    state, events = play_all(_supply_state(), {})
    conflict = first(events, "conflict_resolved")
    assert (conflict.eagle_strength, conflict.rose_strength) == (5, 10 + 2 + 5)  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert conflict.winner == ROSE and conflict.winners == 2  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert [p.vp for p in state.players] == [0, 4, 0, 4]
    assert state.lands[0].house == ROSE


def test_rules_test_vector_without_action_cards() -> None:
    """The simplified vector (no action card held at all): Rose 10 beats Eagle 5 and each Rose seat gains 4."""
    state = replace(new_game(4), phase=Phase.RESOLVE, battlefield=0)
    chain = Chain(state)
    advance(chain)
    conflict = first(chain.events, "conflict_resolved")
    assert (conflict.eagle_strength, conflict.rose_strength, conflict.winner) == (5, 10, ROSE)  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert [p.vp for p in chain.state.players] == [0, 4, 0, 4]
    assert chain.state.lands[0].house == ROSE


def test_traitor_switches_house_and_scores_one() -> None:
    """The Traitor holder switches house at the reveal, his cards count for the new house, and he gains 1 VP."""
    state = drafted(new_game(4), 0, {0: TRAITOR, 1: BUILDER, 2: FARMER, 3: DIPLOMAT2}, hidden=STRATEGIST)
    state, events = play_all(state, {0: [3, 4, 5]})
    changed = first(events, "allegiance_changed")
    assert (changed.seat, changed.house, changed.because) == (0, ROSE, TRAITOR)  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    conflict = first(events, "conflict_resolved")
    assert conflict.rose_strength == 10 + 12 + 2 and conflict.winner == ROSE  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert conflict.winners == 3  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert [p.vp for p in state.players] == [3 + 1, 3, 0, 3]  # D10: the Traitor who joined Rose shares the land


def test_diplomat5_switches_when_the_traitor_leaves_one_house_only() -> None:
    """If after the Traitor all seats share one house, the Diplomat +5 holder switches, keeps +5 for his new
    house and gets no Traitor VP (D14)."""
    state = new_game(3, houses=[EAGLE, EAGLE, ROSE], estates=[2, 3, 4])
    state = drafted(state, 0, {0: DIPLOMAT5, 1: BUILDER, 2: TRAITOR}, hidden=FARMER)
    state, events = play_all(state, {})
    changes = [e.allegiance_changed for e in events if e.WhichOneof("kind") == "allegiance_changed"]
    assert [(c.seat, c.house, c.because) for c in changes] == [(2, EAGLE, TRAITOR), (0, ROSE, DIPLOMAT5)]
    conflict = first(events, "conflict_resolved")
    assert (conflict.eagle_strength, conflict.rose_strength) == (5, 15)  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert [p.vp for p in state.players] == [7, 0, 1]  # seat 0 alone in Rose: VP(river, 1) = 7


def test_diplomat5_stays_when_houses_are_still_mixed() -> None:
    """The Diplomat +5 holder does not switch while both houses still have players (D14)."""
    state = drafted(new_game(4), 0, {0: TRAITOR, 1: DIPLOMAT5, 2: FARMER, 3: BUILDER}, hidden=STRATEGIST)
    _, events = play_all(state, {})
    assert [e.allegiance_changed.seat for e in events if e.WhichOneof("kind") == "allegiance_changed"] == [0]


def test_tie_flips_nothing_but_traitor_and_strategist_score() -> None:
    """Equal strength is a tie: no land VP, nothing flips, yet Traitor +1 and Strategist +2 still score (D8, D9)."""
    state = drafted(new_game(4), 0, {0: STRATEGIST, 1: BUILDER, 2: FARMER, 3: TRAITOR}, hidden=DIPLOMAT2)
    state, events = play_all(state, {0: [5]})  # Eagle 5 + 5 = Rose 10 (seat 3 leaves Rose, seat 1 plays nothing)
    conflict = first(events, "conflict_resolved")
    assert conflict.winner == pb.VERRAETER_HOUSE_UNSPECIFIED  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert "land_flipped" not in kinds(events)
    assert state.lands[0].house == EAGLE and state.lands[1].house == ROSE
    assert [p.vp for p in state.players] == [2, 0, 0, 1]


def test_a_house_without_players_can_win_and_nobody_scores_the_land() -> None:
    """A house may win with no players in it: no land VP, but the land still flips (D11)."""
    state = new_game(3, houses=[EAGLE, EAGLE, ROSE], estates=[2, 3, 4])
    state = drafted(state, 0, {0: BUILDER, 1: FARMER, 2: TRAITOR}, hidden=DIPLOMAT5)
    state, events = play_all(state, {})  # everyone Eagle now; Rose village 10 beats Eagle river 5
    conflict = first(events, "conflict_resolved")
    assert conflict.winner == ROSE and conflict.winners == 0  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert state.lands[0].house == ROSE
    assert [p.vp for p in state.players] == [0, 0, 1]


def test_the_vp_table_depends_on_the_number_of_winners() -> None:
    """Each winner gains the conquered land's VP for the number of winners: a city for 2 Eagle seats gives 7."""
    state = new_game(4)  # position 10/11: village (Eagle) - city (Eagle); position 5/6 city (Rose) - wild (Rose)
    state = drafted(state, 4, {0: BUILDER, 1: FARMER, 2: DIPLOMAT2, 3: STRATEGIST}, hidden=TRAITOR)
    state, events = play_all(state, {0: [3, 4, 5], 2: [3, 4, 5]})  # Eagle forest 7 + 24 + 2 vs Rose city 15
    assert first(events, "conflict_resolved").winner == EAGLE  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert [p.vp for p in state.players] == [7, 0, 7, 2]
    assert state.lands[5].house == EAGLE
