"""Every illegal or malformed command is rejected with one sentence and changes nothing."""

from __future__ import annotations

import copy

import pytest

from engines.contract import step
from engines.errors import IllegalCommandError, MalformedCommandError, NotYourTurnError
from engines.libertalia.state import Phase
from parlour.v1 import libertalia_pb2 as pb
from tests.engines.libertalia.helpers import (
    MAP,
    G,
    ability,
    character,
    loot,
    reward,
    run,
    scenario,
    select,
    supply,
)


def _rejects(state: object, seat: int, command: pb.LibertaliaCommand, error: type[Exception], words: str) -> None:
    """The command is refused with a one-sentence message holding ``words``, is not among the seat's legal
    commands, and leaves the state as it was (compared with a deep copy taken before)."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as caught:
        step(G, state, seat, command)  # type: ignore[arg-type]  # deliberately malformed commands
    message = str(caught.value)
    assert words in message and message.count(".") <= 1
    assert state == before
    assert command not in G.legal_commands(state, seat)  # type: ignore[arg-type]  # deliberately malformed commands


def test_selecting_a_card_not_in_hand_is_illegal() -> None:
    """The message names the missing card from the player's own view."""
    _rejects(
        scenario(phase=Phase.SELECT), 0, select(7), IllegalCommandError, "you have no Preacher (rank 7) in your hand"
    )


def test_selecting_twice_is_not_your_turn() -> None:
    """A seat that has selected is no longer pending."""
    state = scenario(phase=Phase.SELECT)
    events = step(G, state, 0, select(40))
    state = G.evolve(state, events[0])
    _rejects(state, 0, select(40), NotYourTurnError, "not your turn")


def test_a_rank_outside_1_to_40_is_malformed() -> None:
    """Rank 41 names no character."""
    _rejects(scenario(phase=Phase.SELECT), 0, select(41), MalformedCommandError, "ranks go from 1 to 40")


def test_an_empty_command_is_malformed() -> None:
    """No kind set."""
    _rejects(scenario(phase=Phase.SELECT), 0, pb.LibertaliaCommand(), MalformedCommandError, "names no action")


def test_a_choice_during_the_selection_is_illegal() -> None:
    """Nothing is asked but the selection."""
    _rejects(scenario(phase=Phase.SELECT), 0, character(0, 40), IllegalCommandError, "no choice is asked of you now")


def test_a_selection_during_a_choice_is_illegal() -> None:
    """While a Gunner choice is pending, selecting is refused."""
    state, _ = run(scenario(players={0: {"ship": (8,)}, 1: {"ship": (9,)}}, island=((0, 18),)))
    _rejects(state, 0, select(40), IllegalCommandError, "you cannot select a character now")


def test_an_option_the_choice_does_not_offer_is_illegal() -> None:
    """A Gunner cannot target a card that is in no ship."""
    state, _ = run(scenario(players={0: {"ship": (8,)}, 1: {"ship": (9,)}}, island=((0, 18),)))
    _rejects(state, 0, character(2, 30), IllegalCommandError, "seat 2's Merchant is not an option")


def test_the_wrong_command_kind_for_a_choice_is_illegal() -> None:
    """A loot answer to a character choice is refused."""
    state, _ = run(scenario(players={0: {"ship": (8,)}, 1: {"ship": (9,)}}, island=((0, 18),)))
    _rejects(state, 0, loot(MAP), IllegalCommandError, "does not answer the choice")


def test_another_seat_cannot_answer_a_choice() -> None:
    """Only the chooser is pending."""
    state, _ = run(scenario(players={0: {"ship": (8,)}, 1: {"ship": (9,)}}, island=((0, 18),)))
    _rejects(state, 1, character(0, 8), NotYourTurnError, "not your turn")


def test_a_merchant_count_beyond_what_is_held_is_illegal() -> None:
    """Selling 3 maps while holding 2 is refused."""
    state, _ = run(scenario(players={0: {"supply": supply(map=2, relic=1)}}, island=((0, 30),)))
    _rejects(state, 0, loot(MAP, 0, 3), IllegalCommandError, "3 x map from seat 0's supply is not an option")


def test_a_count_outside_0_to_3_is_malformed() -> None:
    """Count 4 is not understood."""
    state, _ = run(scenario(players={0: {"supply": supply(map=2, relic=1)}}, island=((0, 30),)))
    _rejects(state, 0, loot(MAP, 0, 4), MalformedCommandError, "count of 4")


def test_an_unspecified_loot_type_is_malformed() -> None:
    """A loot type must be set."""
    state, _ = run(scenario(players={0: {"supply": supply(map=2, relic=1)}}, island=((0, 30),)))
    command = pb.LibertaliaCommand(choose_loot=pb.LibertaliaChooseLoot())
    _rejects(state, 0, command, MalformedCommandError, "a loot type must be set")


def test_a_seat_outside_the_game_is_malformed() -> None:
    """Seat 7 does not exist in a 3-player game."""
    state, _ = run(scenario(players={0: {"ship": (8,)}, 1: {"ship": (9,)}}, island=((0, 18),)))
    _rejects(state, 0, character(7, 8), MalformedCommandError, "there is no seat 7")


def test_choose_ability_naming_both_or_neither_is_malformed() -> None:
    """Rank and loot together are not understood."""
    _rejects(scenario(phase=Phase.SELECT), 0, ability(8, MAP), MalformedCommandError, "not both or neither")


def test_an_unset_reward_is_malformed() -> None:
    """A reward must be named."""
    _rejects(scenario(phase=Phase.SELECT), 0, reward(0), MalformedCommandError, "a reward must be set")


def test_surgeon_rejection_does_not_reveal_the_graveyard_to_others() -> None:
    """An opponent's attempt is only told it is not their turn."""
    state, _ = run(scenario(players={0: {"graveyard": (7, 11)}}, island=((0, 31),)))
    with pytest.raises(NotYourTurnError) as caught:
        step(G, state, 1, character(0, 11))
    assert "11" not in str(caught.value) and "Carpenter" not in str(caught.value)


def test_legal_commands_are_accepted_and_change_nothing_in_the_state() -> None:
    """Each legal command is accepted by step and the state object is unchanged."""
    state, _ = run(scenario(players={0: {"ship": (8,)}, 1: {"ship": (9,)}}, island=((0, 18),)))
    for command in G.legal_commands(state, 0):
        assert step(G, state, 0, command)
    assert state.prompt is not None
