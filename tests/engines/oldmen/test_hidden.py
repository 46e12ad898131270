"""Hidden information (rules section 6, D11): what views and redacted events show to each seat and to spectators."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines.contract import commit_seed, fold
from engines.oldmen import OLDMEN
from engines.oldmen.data import Card
from engines.oldmen.state import State
from engines.playout import Playout, play
from parlour.v1 import oldmen_pb2 as pb
from tests.engines.oldmen.helpers import as_cards, fill_hands, of_kind, play_trick, setup

VIEWERS = [0, 1, 2, 3, None]


def _game(seats: int = 4, seed: bytes = b"hidden", match_deals: str = "1") -> Playout:
    return play(OLDMEN, OLDMEN.spec.config(seats, {"match_deals": match_deals}), seed)


def _state_after_setup(seats: int = 4) -> tuple[list[pb.OldmenEvent], State]:
    events = OLDMEN.start(OLDMEN.spec.config(seats), b"hidden")
    state = fold(OLDMEN, events)
    assert state is not None
    return events, state


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_view_shows_own_hand_and_only_counts_of_others(seat: int) -> None:
    """A seat sees its own cards and, for every other seat, only how many cards it holds."""
    _, state = _state_after_setup()
    view = OLDMEN.view(state, seat)
    for seat_view in view.seats:
        assert seat_view.hand_count == len(state.players[seat_view.seat].hand) == 10
        if seat_view.seat == seat:
            assert sorted(as_cards(seat_view.hand)) == sorted(state.players[seat].hand)
        else:
            assert list(seat_view.hand) == []


def test_hand_counts_follow_the_cards_played() -> None:
    """Others see a hand count of 10 minus the cards played so far."""
    state = setup(fill_hands(3, {0: ["red 1"], 1: ["red 2"]}))
    state, _ = play_trick(state, "red 1", "red 2")
    view = OLDMEN.view(state, 2)
    assert [s.hand_count for s in view.seats] == [9, 9, 10]
    assert [(t.seat, Card.from_pb(t.card)) for t in view.trick] == list(state.trick)


def test_spectator_sees_no_hand() -> None:
    """A spectator sees every seat's hand count and no card of any hand."""
    _, state = _state_after_setup()
    view = OLDMEN.view(state, None)
    assert all(list(s.hand) == [] and s.hand_count == 10 for s in view.seats)


@pytest.mark.parametrize("seat", VIEWERS)
def test_view_never_shows_the_orangutan_deck_order(seat: int | None) -> None:
    """Two games that differ only in the order of the face-down orangutan deck look the same to everyone."""
    _, state = _state_after_setup()
    reordered = replace(state, deck=state.deck[::-1])
    assert reordered.deck != state.deck
    assert OLDMEN.view(state, seat) == OLDMEN.view(reordered, seat)
    assert OLDMEN.view(state, seat).deck_count == len(state.deck)


@pytest.mark.parametrize("seat", [0, 3, None])
def test_view_is_unchanged_by_other_seats_hands(seat: int | None) -> None:
    """Swapping cards between two other seats' hands does not change what a seat sees."""
    _, state = _state_after_setup()
    a, b = [s for s in range(4) if s != seat][:2]
    players = list(state.players)
    players[a], players[b] = (
        replace(players[a], hand=(players[b].hand[0], *players[a].hand[1:])),
        replace(players[b], hand=(players[a].hand[0], *players[b].hand[1:])),
    )
    assert OLDMEN.view(state, seat) == OLDMEN.view(replace(state, players=tuple(players)), seat)


@pytest.mark.parametrize("seat", VIEWERS)
def test_redacted_deck_shuffle_never_shows_the_order(seat: int | None) -> None:
    """OrangutanDeckShuffled keeps only its size for every viewer unless the game is public after its end."""
    events, _ = _state_after_setup()
    (shuffled,) = of_kind(events, "orangutan_deck_shuffled")
    assert OLDMEN.redact(shuffled, seat, finished=True) == shuffled
    redacted = OLDMEN.redact(shuffled, seat)
    assert list(redacted.orangutan_deck_shuffled.order) == []
    assert redacted.orangutan_deck_shuffled.count == 16
    assert len(shuffled.orangutan_deck_shuffled.order) == 16  # the original event is not modified


@pytest.mark.parametrize("seat", VIEWERS)
def test_redacted_hands_show_only_the_viewers_own(seat: int | None) -> None:
    """HandDealt keeps its cards for the seat dealt to and only the count for everyone else."""
    events, _ = _state_after_setup()
    for event in of_kind(events, "hand_dealt"):
        redacted = OLDMEN.redact(event, seat).hand_dealt
        assert redacted.count == 10
        if event.hand_dealt.seat == seat:
            assert list(redacted.cards) == list(event.hand_dealt.cards)
        else:
            assert list(redacted.cards) == []
        assert len(event.hand_dealt.cards) == 10


@pytest.mark.parametrize("seat", VIEWERS)
def test_no_redacted_event_of_a_whole_match_shows_the_deck_order(seat: int | None) -> None:
    """Across a whole two-game match, to its end, no redacted event reveals the deck order or the seed."""
    game = _game(match_deals="2")
    for event in game.events:
        redacted = OLDMEN.redact(event, seat)
        if redacted.HasField("orangutan_deck_shuffled"):
            assert list(redacted.orangutan_deck_shuffled.order) == []
        if redacted.HasField("match_finished"):
            assert redacted.match_finished.seed == b"" and redacted.match_finished.seed_salt == b""


@pytest.mark.parametrize("seat", VIEWERS)
def test_seed_is_hidden_while_running_and_revealed_at_the_end(seat: int | None) -> None:
    """The redacted GameStarted keeps the commitment but not the seed; MatchFinished reveals the seed."""
    game = _game(seed=b"secret-seed")
    started = OLDMEN.redact(game.events[0], seat).game_started
    assert started.seed == b""
    assert started.seed_commitment == commit_seed(b"secret-seed", started.rules_version)
    assert game.events[0].game_started.seed == b"secret-seed"  # the stored event keeps it
    finished = OLDMEN.redact(of_kind(game.events, "match_finished")[0], seat, finished=True).match_finished
    assert finished.seed == b"secret-seed"
    assert commit_seed(finished.seed, started.rules_version) == started.seed_commitment


@pytest.mark.parametrize("seat", VIEWERS)
def test_no_view_shows_the_seed(seat: int | None) -> None:
    """The seed appears in no view, not even at the end."""
    game = _game(seed=b"hidden")
    for state in (_state_after_setup()[1], game.state):
        assert b"hidden" not in OLDMEN.view(state, seat).SerializeToString()


def test_undealt_cards_are_never_shown() -> None:
    """Only the number of undealt player cards is shown, never which cards they are (D11)."""
    game = _game(seats=3)
    state = game.state
    view = OLDMEN.view(state, None)
    assert view.undealt_count == 20
    dealt = {Card.from_pb(c) for e in of_kind(game.events, "hand_dealt") for c in e.hand_dealt.cards}
    shown = {Card.from_pb(c) for c in view.discard}
    for seat_view in view.seats:
        shown |= {Card.from_pb(c) for c in seat_view.pool}
        shown |= {Card.from_pb(c) for s in seat_view.saved for c in s.tucked}
    assert shown <= dealt


def test_public_parts_are_shown_to_everyone() -> None:
    """Pools, saved orangutans with their tucked cards, the discard pile and the row are public (D17)."""
    state = _game(seats=4).state
    views = [OLDMEN.view(state, seat) for seat in VIEWERS]
    for view in views[1:]:
        assert list(view.discard) == list(views[0].discard)
        assert [list(s.pool) for s in view.seats] == [list(s.pool) for s in views[0].seats]
        assert [list(s.saved) for s in view.seats] == [list(s.saved) for s in views[0].seats]
        assert list(view.row) == list(views[0].row)
    assert len(views[0].discard) == len(state.discard)


def test_phase_names_on_the_wire() -> None:
    """A finished game shows the over phase; a new one the play phase."""
    assert OLDMEN.view(_game().state, None).phase == pb.OLDMEN_PHASE_OVER
    assert OLDMEN.view(_state_after_setup()[1], None).phase == pb.OLDMEN_PHASE_PLAY
