"""Playing and ranking a trick, taking cards and discarding the rest (rules section 3, steps 1-5; D6, D7, D19)."""

from __future__ import annotations

import pytest

from engines.contract import step
from engines.errors import IllegalCommandError
from engines.oldmen import OLDMEN
from engines.oldmen.state import Phase, State
from parlour.v1 import oldmen_pb2 as pb
from tests.engines.oldmen.helpers import (
    as_cards,
    card,
    cards,
    fill_hands,
    kinds,
    of_kind,
    play,
    play_trick,
    run,
    setup,
    take,
)


def _ranked(events: list[pb.OldmenEvent]) -> tuple[int, int]:
    ranked = of_kind(events, "trick_ranked")[0].trick_ranked
    return ranked.first_seat, ranked.second_seat


def test_play_goes_clockwise_from_the_leader() -> None:
    """After the leader, each seat plays in turn clockwise, wrapping from the last seat to seat 0."""
    hands = fill_hands(4, {2: ["red 1"], 3: ["red 2"], 0: ["red 3"], 1: ["red 4"]})
    state = setup(hands, start_seat=2)
    order = []
    for text in ["red 1", "red 2", "red 3", "red 4"]:
        (seat,) = OLDMEN.pending(state)
        order.append(seat)
        state, _ = run(state, [(seat, play(text))])
    assert order == [2, 3, 0, 1]


def test_any_card_in_hand_may_be_played() -> None:
    """There is no duty to follow colour and no duty to beat: every card in hand is a legal play."""
    hands = fill_hands(3, {0: ["red 9"], 1: ["red 1", "yellow 2", "blue 3", "brown 4"]})
    state, _ = play_trick(setup(hands), "red 9")
    legal = OLDMEN.legal_commands(state, 1)
    assert sorted(as_cards(c.play_card.card for c in legal)) == sorted(state.players[1].hand)
    state, _ = run(state, [(1, play("yellow 2"))])  # neither red nor higher than the red 9
    assert state.card_of(1) == card("yellow 2")


def test_played_card_leaves_the_hand() -> None:
    """A played card moves from the hand to the trick, face up."""
    hands = fill_hands(3, {0: ["green 7"]})
    state, events = play_trick(setup(hands), "green 7")
    assert card("green 7") not in state.players[0].hand and len(state.players[0].hand) == 9
    assert state.trick == ((0, card("green 7")),)
    assert as_cards([events[0].card_played.card]) == [card("green 7")]


@pytest.mark.parametrize(
    ("played", "winners"),
    [
        (["red 3", "yellow 8", "red 5", "blue 5"], (1, 2)),  # SEED: C's 5 was played before D's 5
        (["red 8", "yellow 8", "red 5", "blue 2"], (0, 1)),  # two equal top cards: first and second winner
        (["red 3", "yellow 8", "blue 8", "green 8"], (1, 2)),  # three equal top cards: the two played first
        (["red 1", "yellow 2", "blue 3", "green 10"], (3, 2)),  # the last card can win
        (["brown 10", "yellow 9", "blue 3", "green 4"], (0, 1)),  # brown is no weaker: colour never counts
    ],
)
def test_trick_ranking(played: list[str], winners: tuple[int, int]) -> None:
    """Cards rank by value, highest first; an equal value loses to the one played earlier (D6)."""
    hands = fill_hands(4, {seat: [text] for seat, text in enumerate(played)})
    _, events = play_trick(setup(hands), *played)
    assert _ranked(events) == winners


def test_ranking_uses_play_order_not_seat_number() -> None:
    """The tie-break follows play order from the leader, so a higher seat played earlier wins the tie."""
    played = {3: "red 6", 0: "yellow 6", 1: "blue 1", 2: "green 2"}
    hands = fill_hands(4, {seat: [text] for seat, text in played.items()})
    _, events = play_trick(setup(hands, start_seat=3), "red 6", "yellow 6", "blue 1", "green 2")
    assert _ranked(events) == (3, 0)


def test_trick_is_ranked_only_when_every_seat_played() -> None:
    """The take phase starts after the last card of the trick, not before."""
    hands = fill_hands(3, {0: ["red 9"], 1: ["red 8"], 2: ["red 7"]})
    state, events = play_trick(setup(hands), "red 9", "red 8")
    assert state.phase is Phase.PLAY and "trick_ranked" not in kinds(events)
    state, events = run(state, [(2, play("red 7"))])
    assert state.phase is Phase.TAKE and kinds(events) == ["card_played", "trick_ranked"]


def _four_player_trick() -> State:
    hands = fill_hands(4, {0: ["red 3"], 1: ["yellow 8"], 2: ["red 5"], 3: ["brown 5"]})
    state, _ = play_trick(setup(hands), "red 3", "yellow 8", "red 5", "brown 5")
    return state  # first winner 1, second winner 2


def test_first_winner_must_take_before_anyone_else_acts() -> None:
    """After the trick only the first winner acts, and only taking a card is allowed (D7)."""
    state = _four_player_trick()
    assert OLDMEN.pending(state) == {1}
    legal = OLDMEN.legal_commands(state, 1)
    assert {c.WhichOneof("kind") for c in legal} == {"take_card"}
    assert sorted(c.take_card.from_seat for c in legal) == [0, 2, 3]


def test_first_winner_may_take_a_brown_card() -> None:
    """Any card but one's own may be taken, brown included; it goes to the pool, not the hand (D19)."""
    state = _four_player_trick()
    hand = state.players[1].hand
    state, events = run(state, [(1, take(3))])
    assert state.players[1].pool == cards("brown 5")
    assert state.players[1].hand == hand
    assert as_cards([events[0].card_taken.card]) == [card("brown 5")]


def test_second_winner_takes_after_the_first() -> None:
    """Once the first winner has taken, the second winner must take one of the cards left."""
    state = _four_player_trick()
    state, _ = run(state, [(1, take(0))])
    assert OLDMEN.pending(state) == {2}
    legal = OLDMEN.legal_commands(state, 2)
    assert sorted(c.take_card.from_seat for c in legal) == [1, 3]


def test_second_winner_may_take_the_first_winners_card() -> None:
    """The second winner may take the card the first winner played."""
    state = _four_player_trick()
    state, _ = run(state, [(1, take(0)), (2, take(1))])
    assert state.players[2].pool == cards("yellow 8")


def test_second_winner_cannot_take_the_card_already_taken() -> None:
    """The card the first winner took is no longer in the trick for the second winner."""
    state = _four_player_trick()
    state, _ = run(state, [(1, take(3))])
    with pytest.raises(IllegalCommandError, match="already taken"):
        step(OLDMEN, state, 2, take(3))


def test_three_players_second_winner_may_have_one_option() -> None:
    """With 3 players, if the first winner takes the third player's card, the second must take the first's."""
    hands = fill_hands(3, {0: ["red 9"], 1: ["red 8"], 2: ["red 1"]})
    state, _ = play_trick(setup(hands), "red 9", "red 8", "red 1")
    state, _ = run(state, [(0, take(2))])
    assert OLDMEN.legal_commands(state, 1) == [take(0)]
    state, events = run(state, [(1, take(0))])
    assert state.players[1].pool == cards("red 9")
    assert as_cards(of_kind(events, "cards_discarded")[0].cards_discarded.cards) == [card("red 8")]


@pytest.mark.parametrize("seats", [3, 4])
def test_cards_nobody_took_are_discarded(seats: int) -> None:
    """After both takes the N-2 untaken cards go face up to the discard pile for good."""
    played = ["blue 1", "blue 10", "blue 9", "blue 2"][:seats]
    hands = fill_hands(seats, {seat: [text] for seat, text in enumerate(played)})
    state, _ = play_trick(setup(hands), *played)
    state, events = run(state, [(1, take(0)), (2, take(1))])
    rest = [card(t) for seat, t in enumerate(played) if seat not in (0, 1)]
    assert kinds(events) == ["card_taken", "card_taken", "cards_discarded"]
    assert as_cards(events[-1].cards_discarded.cards) == rest
    assert list(state.discard) == rest
    assert state.phase is Phase.SAVE
