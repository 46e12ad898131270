"""Every refused command: the right error type, a clear sentence, no leak of hidden cards, and no change."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable

import pytest

from engines.contract import step
from engines.errors import GameOverError, IllegalCommandError, MalformedCommandError, NotYourTurnError
from engines.oldmen import OLDMEN
from engines.oldmen.data import DECK, Card
from engines.oldmen.state import State
from engines.playout import play as playout
from parlour.v1 import oldmen_pb2 as pb
from tests.engines.oldmen.helpers import (
    cards,
    decline,
    fill_hands,
    play,
    play_trick,
    run,
    save,
    setup,
    take,
)

# Seat 0 leads; seats 0..3 will play blue 10, blue 9, red 1, yellow 1: seat 0 first winner, seat 1 second.
HANDS = fill_hands(4, {0: ["blue 10", "green 5"], 1: ["blue 9"], 2: ["red 1", "brown 7"], 3: ["yellow 1"]})
ORDER = ("O01", "O02", "O15", "O16", "O05", "O03", "O04", "O06", "O07", "O08", "O09", "O10", "O11", "O12")


def _play_phase() -> State:
    return setup(HANDS, order=ORDER)


def _take_phase() -> State:
    state, _ = play_trick(_play_phase(), "blue 10", "blue 9", "red 1", "yellow 1")
    return state


def _save_phase() -> State:
    state, _ = run(_take_phase(), [(0, take(2)), (1, take(0))])
    return state


def _refused(state: State, seat: int, command: pb.OldmenCommand, error: type[Exception], *words: str) -> str:
    """Submit ``command`` through step; check the error type, its key words, and that nothing changed."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as raised:
        step(OLDMEN, state, seat, command)
    assert type(raised.value) is error
    message = str(raised.value)
    for word in words:
        assert word in message, f"{word!r} missing from {message!r}"
    assert state == before
    assert command not in OLDMEN.legal_commands(state, seat)
    return message


def _card_command(colour: int, value: int) -> pb.OldmenCommand:
    # colour may be a number outside the enum on purpose: proto3 enums are open, so clients can send it
    malformed = pb.OldmenCard(colour=colour, value=value)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    return pb.OldmenCommand(play_card=pb.OldmenPlayCard(card=malformed))


def test_playing_a_card_not_in_hand_is_illegal() -> None:
    """A card that is not in the player's hand cannot be played."""
    _refused(_play_phase(), 0, play("blue 9"), IllegalCommandError, "blue 9", "not in your hand")


def test_won_cards_cannot_be_played() -> None:
    """A card in the won-card pool is not in the hand, so it cannot be played to a trick (D19)."""
    state, _ = run(_save_phase(), [(0, decline()), (1, decline())])
    assert state.players[0].pool == cards("red 1")
    _refused(state, 0, play("red 1"), IllegalCommandError, "not in your hand")


@pytest.mark.parametrize(
    ("colour", "value"),
    [
        (pb.OLDMEN_COLOUR_UNSPECIFIED, 5),
        (pb.OLDMEN_COLOUR_RED, 0),
        (pb.OLDMEN_COLOUR_RED, 11),
        (pb.OLDMEN_COLOUR_BLUE, -3),
        (9, 5),
    ],
)
def test_malformed_card_is_refused(colour: int, value: int) -> None:
    """A card without a real colour or with a value outside 1..10 is malformed, not merely illegal."""
    _refused(_play_phase(), 0, _card_command(colour, value), MalformedCommandError, "colour", "value from 1 to 10")


def test_empty_play_card_is_malformed() -> None:
    """A play command that names no card is malformed."""
    command = pb.OldmenCommand(play_card=pb.OldmenPlayCard())
    _refused(_play_phase(), 0, command, MalformedCommandError, "colour")


@pytest.mark.parametrize("phase", [_play_phase, _take_phase, _save_phase])
def test_command_without_kind_is_malformed(phase: Callable[[], State]) -> None:
    """A command with no action set is malformed in every phase, and the sentence names the actions."""
    state = phase()
    (seat,) = OLDMEN.pending(state)
    _refused(state, seat, pb.OldmenCommand(), MalformedCommandError, "no action", "play_card", "decline_save")


@pytest.mark.parametrize(
    ("phase", "seat", "command", "words"),
    [
        (_play_phase, 0, take(1), ("cannot take card now", "play a card")),
        (_play_phase, 0, save("O01"), ("cannot save orangutan now", "play a card")),
        (_play_phase, 0, decline(), ("cannot decline save now", "play a card")),
        (_take_phase, 0, play("green 5"), ("cannot play card now", "take a card")),
        (_take_phase, 0, decline(), ("cannot decline save now", "take a card")),
        (_take_phase, 0, save("O02"), ("cannot save orangutan now", "take a card")),
        (_save_phase, 0, play("green 5"), ("cannot play card now", "save an orangutan or decline")),
        (_save_phase, 0, take(3), ("cannot take card now", "save an orangutan or decline")),
    ],
)
def test_command_of_another_phase_is_illegal(
    phase: Callable[[], State], seat: int, command: pb.OldmenCommand, words: tuple[str, ...]
) -> None:
    """A command meant for another phase is illegal, and the sentence says what is due instead."""
    _refused(phase(), seat, command, IllegalCommandError, *words)


def test_taking_your_own_card_is_illegal() -> None:
    """A winner cannot take the card they played."""
    _refused(_take_phase(), 0, take(0), IllegalCommandError, "own card")
    state, _ = run(_take_phase(), [(0, take(2))])
    _refused(state, 1, take(1), IllegalCommandError, "own card")


def test_taking_a_card_already_taken_is_illegal() -> None:
    """The second winner cannot take the card the first winner already took."""
    state, _ = run(_take_phase(), [(0, take(3))])
    _refused(state, 1, take(3), IllegalCommandError, "seat 3", "already taken")


@pytest.mark.parametrize("from_seat", [4, 7, -1])
def test_taking_from_a_seat_not_at_the_table_is_illegal(from_seat: int) -> None:
    """A seat number that is not at the table has no card to take."""
    _refused(_take_phase(), 0, take(from_seat), IllegalCommandError, f"seat {from_seat}", "no card in this trick")


def test_saving_an_orangutan_not_in_the_row_is_illegal() -> None:
    """An orangutan still in the deck (or already saved) cannot be saved."""
    state = _save_phase()
    assert "O03" in state.deck
    message = _refused(state, 0, save("O03"), IllegalCommandError, "O03", "not in the row")
    assert "deck" not in message


def test_saving_an_unknown_orangutan_is_illegal() -> None:
    """An orangutan id the game does not have is refused with the id named."""
    _refused(_save_phase(), 0, save("O99"), IllegalCommandError, "no orangutan 'O99'")
    _refused(_save_phase(), 0, save(""), IllegalCommandError, "no orangutan ''")


def test_saving_an_unaffordable_orangutan_is_illegal() -> None:
    """Without the needed colours in the pool the save is refused, naming what the orangutan needs."""
    state = _save_phase()
    assert state.players[0].pool == cards("red 1")
    _refused(state, 0, save("O01"), IllegalCommandError, "cannot pay for orangutan O01", "1 yellow")
    _refused(state, 0, save("O05"), IllegalCommandError, "1 red and 1 yellow")


@pytest.mark.parametrize(
    ("phase", "seat", "command"),
    [
        (_play_phase, 1, play("blue 9")),
        (_play_phase, 3, play("yellow 1")),
        (_take_phase, 1, take(2)),
        (_take_phase, 2, take(3)),
        (_save_phase, 1, decline()),
        (_save_phase, 3, decline()),
    ],
)
def test_acting_out_of_turn_is_refused(phase: Callable[[], State], seat: int, command: pb.OldmenCommand) -> None:
    """A seat that need not act now is refused, even with a command that would be legal on its turn."""
    _refused(phase(), seat, command, NotYourTurnError, "not your turn")


def test_second_winner_cannot_take_before_the_first() -> None:
    """The second winner waits for the first winner's take."""
    _refused(_take_phase(), 1, take(0), NotYourTurnError, "not your turn")


@pytest.mark.parametrize("seat", [0, 1, 2])
@pytest.mark.parametrize("command", [play("red 1"), take(1), save("O01"), decline()])
def test_any_command_after_the_game_is_over_is_refused(seat: int, command: pb.OldmenCommand) -> None:
    """Once the game is over every command from every seat is refused with GameOverError."""
    state = _finished()
    _refused(state, seat, command, GameOverError, "game is over")


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_malformed_command_after_the_game_is_over_is_malformed(seat: int) -> None:
    """Malformed before illegal: an empty command is malformed, even once the game is over."""
    _refused(_finished(), seat, pb.OldmenCommand(), MalformedCommandError, "names no action")


_FINISHED: list[State] = []


def _finished() -> State:
    if not _FINISHED:
        _FINISHED.append(playout(OLDMEN, OLDMEN.spec.config(3), b"over").state)
    return _FINISHED[0]


def test_errors_never_name_other_seats_hidden_cards() -> None:
    """The refusal of a card held by another seat reads exactly like that of an undealt card."""
    state = _play_phase()
    others = {c for seat in (1, 2, 3) for c in state.players[seat].hand}
    undealt = [c for c in DECK if c not in others and c not in state.players[0].hand]
    template = {_refused(state, 0, play(str(undealt[0])), IllegalCommandError).replace(str(undealt[0]), "X")}
    for hidden in sorted(others):
        message = _refused(state, 0, play(str(hidden)), IllegalCommandError)
        assert message.replace(str(hidden), "X") in template
        for seat in (1, 2, 3):
            assert f"seat {seat}" not in message


def test_no_refusal_mentions_a_card_hidden_from_the_actor() -> None:
    """No refused command, in any phase and by any seat, quotes a card in another seat's hand it did not name."""
    commands = [
        *(play(str(c)) for c in DECK),
        *(take(s) for s in range(-1, 6)),
        *(save(o) for o in (*ORDER, "O16", "O99")),
        decline(),
        pb.OldmenCommand(),
    ]
    refusals = 0
    for phase in (_play_phase, _take_phase, _save_phase):
        state = phase()
        for seat in range(4):
            hidden = {c for other in range(4) if other != seat for c in state.players[other].hand}
            for command in commands:
                try:
                    step(OLDMEN, state, seat, command)
                except (IllegalCommandError, MalformedCommandError) as error:
                    refusals += 1
                    named = Card.from_pb(command.play_card.card) if command.HasField("play_card") else None
                    quoted = {c for c in hidden if c != named and re.search(rf"\b{c}\b", str(error))}
                    assert not quoted, f"{error!r} names hidden cards {quoted}"
    assert refusals > 500
