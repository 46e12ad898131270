"""Hidden information (rules section 6), rejected commands, and the provisional Mercenary option (5.2)."""

from __future__ import annotations

import copy

import pytest

from engines.contract import step
from engines.errors import IllegalCommandError, MalformedCommandError, NotYourTurnError
from engines.playout import play
from engines.verraeter import VERRAETER
from engines.verraeter.data import EAGLE, ROSE
from engines.verraeter.state import Phase
from parlour.v1 import verraeter_pb2 as pb
from tests.engines.verraeter.helpers import (
    BUILDER,
    DIPLOMAT2,
    DIPLOMAT5,
    FARMER,
    MERCENARY,
    STRATEGIST,
    TRAITOR,
    act,
    battlefield,
    declare,
    drafted,
    first,
    new_game,
    play_all,
    setup_events,
    supply,
    take,
)


def test_hands_are_seen_only_by_their_owner() -> None:
    """A seat sees its own hand values; other seats and spectators see only the count."""
    state = new_game(4, hands=[[2], [3, 4], [5], [6]])
    view = VERRAETER.view(state, 1)
    assert list(view.seats[1].hand) == [3, 4] and list(view.seats[0].hand) == []
    assert view.seats[0].hand_count == 1
    assert all(not s.hand for s in VERRAETER.view(state, None).seats)
    dealt = setup_events(4, hands=[[2], [3, 4], [5], [6]])[3]
    assert list(VERRAETER.redact(dealt, 1).hand_dealt.values) == []
    assert list(VERRAETER.redact(dealt, 0).hand_dealt.values) == [2]


def test_the_packet_is_seen_only_by_the_seat_holding_it() -> None:
    """Only the seat choosing from the packet sees its cards; others see its size."""
    state, events = act(new_game(4), 1, battlefield(0))
    assert list(VERRAETER.view(state, 0).packet) == sorted(state.packet)
    assert list(VERRAETER.view(state, 2).packet) == [] and VERRAETER.view(state, 2).packet_count == 5
    passed = first(events, "packet_passed")
    assert passed.seat == 0  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    event = next(e for e in events if e.WhichOneof("kind") == "packet_passed")
    assert list(VERRAETER.redact(event, 3).packet_passed.cards) == []
    assert list(VERRAETER.redact(event, 3, finished=True).packet_passed.cards) == list(passed.cards)  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message


def test_the_hidden_action_card_is_never_sent() -> None:
    """The shuffled order (whose first card is the hidden card) is stripped for every seat, unless the game
    is over and public (then the seed gives it away anyway)."""
    _, events = act(new_game(4), 1, battlefield(0))
    event = next(e for e in events if e.WhichOneof("kind") == "action_cards_shuffled")
    for seat in (None, 0, 1, 2, 3):
        assert list(VERRAETER.redact(event, seat).action_cards_shuffled.order) == []
        assert VERRAETER.redact(event, seat, finished=True) == event


def test_chosen_action_cards_are_private_until_the_reveal() -> None:
    """Before the reveal only the holder sees his action card; afterwards everyone does until the round ends."""
    state = drafted(new_game(4), 0, {0: BUILDER, 1: DIPLOMAT2, 2: FARMER, 3: STRATEGIST}, hidden=TRAITOR)
    assert VERRAETER.view(state, 0).seats[0].action == BUILDER
    assert VERRAETER.view(state, 1).seats[0].action == pb.VERRAETER_ACTION_UNSPECIFIED
    assert VERRAETER.view(state, 1).seats[0].has_action
    taken = pb.VerraeterEvent(action_card_taken=pb.VerraeterActionCardTaken(seat=0, card=BUILDER))
    assert VERRAETER.redact(taken, 1).action_card_taken.card == pb.VERRAETER_ACTION_UNSPECIFIED
    state, _ = play_all(state, {})
    assert state.phase is Phase.BUILD
    assert [s.action for s in VERRAETER.view(state, None).seats] == [BUILDER, DIPLOMAT2, FARMER, STRATEGIST]


def test_draws_and_the_deck_order_are_hidden() -> None:
    """Drawn values reach only the drawing seat; the deck order reaches nobody."""
    game = play(VERRAETER, VERRAETER.spec.config(3), b"hidden")
    for event in game.events:
        kind = event.WhichOneof("kind")
        if kind == "cards_drawn":
            seat = event.cards_drawn.seat
            assert not VERRAETER.redact(event, (seat + 1) % 3).cards_drawn.values
            assert VERRAETER.redact(event, seat).cards_drawn.values == event.cards_drawn.values
        if kind in ("supply_shuffled", "deck_reshuffled"):
            assert not getattr(VERRAETER.redact(event, 0), kind).order


def test_spectators_see_only_public_information() -> None:
    """A spectator's view has no hand, no packet and no action card before the reveal."""
    state, _ = act(new_game(4), 1, battlefield(0))
    view = VERRAETER.view(state, None)
    assert not view.packet and all(not s.hand and not s.action for s in view.seats)


def test_every_illegal_command_changes_nothing() -> None:
    """Rejected commands raise with a sentence and leave the state as it was."""
    state = new_game(4)
    before = copy.deepcopy(state)
    for seat, command, error in [
        (1, pb.VerraeterCommand(), MalformedCommandError),
        (1, supply(3), IllegalCommandError),
        (1, take(TRAITOR), IllegalCommandError),
        (0, battlefield(0), NotYourTurnError),
    ]:
        with pytest.raises(error) as raised:
            step(VERRAETER, state, seat, command)
        assert str(raised.value)
        assert command not in VERRAETER.legal_commands(state, seat)
    assert state == before


def test_wrong_phase_names_what_to_do() -> None:
    """A command of another phase is illegal and the sentence says what the seat should do now."""
    with pytest.raises(IllegalCommandError, match="choose the battlefield"):
        act(new_game(4), 1, supply())


# --- provisional Mercenary --------------------------------------------------------------------------


def test_mercenary_is_off_by_default() -> None:
    """Without the option the Mercenary card is not in play."""
    assert MERCENARY not in new_game(4).actions
    assert MERCENARY in new_game(4, options={"mercenary": "true"}).actions


def test_mercenary_declares_the_house_his_cards_fight_for() -> None:
    """PROVISIONAL: after the reveal the Mercenary holder declares a house; his supply counts for it and he
    shares the land only if it wins, while his allegiance stays."""
    state = new_game(4, options={"mercenary": "true"})
    actions = {0: MERCENARY, 1: BUILDER, 2: FARMER, 3: DIPLOMAT2}
    state = drafted(state, 0, actions, hidden=TRAITOR)
    state, _ = play_all(state, {0: [3, 4, 5]})
    assert state.phase is Phase.MERCENARY and VERRAETER.pending(state) == {0}
    assert [c.declare_mercenary.house for c in VERRAETER.legal_commands(state, 0)] == [EAGLE, ROSE]
    state, events = act(state, 0, declare(ROSE))
    conflict = first(events, "conflict_resolved")
    assert (conflict.eagle_strength, conflict.rose_strength) == (5, 10 + 12 + 2)  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert conflict.winners == 3 and state.players[0].house == EAGLE  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    assert state.players[0].vp == 3


def test_diplomat5_special_case_with_the_traitor_in_five_players() -> None:
    """At 5 seats with 3 Eagle and 2 Rose, a Rose Traitor makes 4 vs 1, so the Diplomat +5 stays (D14)."""
    state = new_game(5, estates=[2, 3, 4, 5, 6])
    actions = {0: DIPLOMAT5, 1: TRAITOR, 2: FARMER, 3: BUILDER, 4: STRATEGIST}
    state = drafted(state, 0, actions, hidden=DIPLOMAT2)
    state, events = play_all(state, {})
    assert [e.allegiance_changed.seat for e in events if e.WhichOneof("kind") == "allegiance_changed"] == [1]
