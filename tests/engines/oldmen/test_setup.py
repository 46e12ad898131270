"""Setup of a deal (rules section 2), player counts (D16), options and the start-player draw (D12)."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.contract import commit_seed, fold
from engines.errors import ConfigError
from engines.oldmen import OLDMEN
from engines.oldmen.data import DECK, Card
from engines.oldmen.setup import deal_events
from engines.oldmen.state import Phase, State
from parlour.v1 import oldmen_pb2 as pb
from tests.engines.oldmen.helpers import ALL_ORANGUTANS, RULES_VERSION, as_cards, of_kind

RULES = OLDMEN.rules
SEEDS = [f"setup-{i}".encode() for i in range(300)]


def _start(seats: int, seed: bytes = b"setup", match_deals: str = "1") -> tuple[list[pb.OldmenEvent], State]:
    events = OLDMEN.start(OLDMEN.spec.config(seats, {"match_deals": match_deals}), seed)
    state = fold(OLDMEN, events)
    assert state is not None
    return events, state


@pytest.mark.parametrize(("seats", "undealt", "row", "deck"), [(3, 20, 4, 12), (4, 10, 5, 11)])
def test_setup_sizes(seats: int, undealt: int, row: int, deck: int) -> None:
    """Each seat gets 10 cards, 50 - 10N stay undealt, N+1 orangutans lie face up and the rest form the deck."""
    events, state = _start(seats)
    hands = [as_cards(e.hand_dealt.cards) for e in of_kind(events, "hand_dealt")]
    assert [len(h) for h in hands] == [10] * seats
    dealt = [c for h in hands for c in h]
    assert len(set(dealt)) == len(dealt) and set(dealt) <= set(DECK)
    view = OLDMEN.view(state, 0)
    assert view.undealt_count == undealt == len(DECK) - len(dealt)
    assert len(view.row) == len(state.row) == row
    assert view.deck_count == len(state.deck) == deck
    assert set(state.row) | set(state.deck) == set(ALL_ORANGUTANS)


@pytest.mark.parametrize("seats", [3, 4])
def test_setup_starts_round_one_empty(seats: int) -> None:
    """A new game starts in round 1 with the start player to play and empty pools, saved areas and discard."""
    events, state = _start(seats)
    start_seat = of_kind(events, "start_player_drawn")[0].start_player_drawn.start_seat
    assert state.phase is Phase.PLAY and state.round == 1 and state.deal == 1
    assert state.leader == start_seat and OLDMEN.pending(state) == {start_seat}
    assert all(p.pool == () and p.saved == () for p in state.players)
    assert state.discard == ()


def test_first_event_names_rules_version_and_commits_to_seed() -> None:
    """GameStarted carries the rules version, the seat count and the commitment to the seed."""
    events, _ = _start(4, seed=b"commit")
    started = events[0].game_started
    assert started.rules_version == RULES_VERSION == OLDMEN.spec.rules_version
    assert started.seats == 4 and started.match_deals == 1
    assert started.seed_commitment == commit_seed(b"commit", RULES_VERSION)
    assert [o.id for o in started.orangutans] == list(ALL_ORANGUTANS)


@pytest.mark.parametrize("seats", [3, 4])
def test_start_player_is_highest_face_up_card(seats: int) -> None:
    """Every seat gets a face-up card; only the seats tied for highest draw again until one is highest."""
    ties = 0
    for seed in SEEDS:
        drawn = deal_events(1, seats, seed, RULES)[0].start_player_drawn
        attempts = sorted({d.attempt for d in drawn.draws})
        assert attempts == list(range(1, len(attempts) + 1))
        contenders = list(range(seats))
        for attempt in attempts:
            draws = [d for d in drawn.draws if d.attempt == attempt]
            assert [d.seat for d in draws] == contenders
            best = max(d.card.value for d in draws)
            contenders = [d.seat for d in draws if d.card.value == best]
        assert contenders == [drawn.start_seat]
        ties += len(attempts) > 1
        cards = [Card.from_pb(d.card) for d in drawn.draws]
        assert len(set(cards)) == len(cards)
    assert ties > 0, "no seed drew a tie: the test did not exercise the redraw"


def test_start_player_tie_ignores_colour() -> None:
    """Two face-up cards of the same value but different colours are a tie and lead to a redraw."""
    for seed in SEEDS:
        drawn = deal_events(1, 4, seed, RULES)[0].start_player_drawn
        first = [d for d in drawn.draws if d.attempt == 1]
        best = max(d.card.value for d in first)
        top = [d for d in first if d.card.value == best]
        if len(top) >= 2 and len({d.card.colour for d in top}) == len(top):
            assert any(d.attempt == 2 for d in drawn.draws)
            return
    pytest.fail("no seed drew a tie of different colours")


def test_start_player_is_spread_over_seats() -> None:
    """Over many seeds every seat becomes start player sometimes."""
    starts = Counter(deal_events(1, 4, seed, RULES)[0].start_player_drawn.start_seat for seed in SEEDS)
    assert set(starts) == {0, 1, 2, 3}
    assert min(starts.values()) > len(SEEDS) // 8


def test_start_player_cards_are_shuffled_back_before_the_deal() -> None:
    """The face-up start-player cards return to the deck, so they can be dealt into hands."""
    back = 0
    for seed in SEEDS[:40]:
        events = deal_events(1, 4, seed, RULES)
        shown = {Card.from_pb(d.card) for d in events[0].start_player_drawn.draws}
        dealt = {c for e in of_kind(events, "hand_dealt") for c in as_cards(e.hand_dealt.cards)}
        back += len(shown & dealt)
    assert back > 0


@pytest.mark.parametrize("seats", [0, 1, 2, 5, 6])
def test_player_counts_outside_3_to_4_are_refused(seats: int) -> None:
    """Only 3 or 4 players may play (D16); 2 and 5 are refused with a sentence naming the range."""
    with pytest.raises(ConfigError, match="3 to 4 players") as error:
        OLDMEN.spec.config(seats)
    assert str(seats) in str(error.value)


def test_match_option_defaults_to_a_single_game() -> None:
    """Without options a game is a single deal."""
    assert OLDMEN.spec.config(3).options == (("match_deals", "1"),)


@pytest.mark.parametrize("value", ["0", "3", "two", ""])
def test_match_option_accepts_only_one_or_two(value: str) -> None:
    """match_deals is 1 (single game) or 2 (two-game match); anything else is refused naming the allowed values."""
    with pytest.raises(ConfigError, match="match_deals") as error:
        OLDMEN.spec.config(4, {"match_deals": value})
    assert "'1'" in str(error.value) and "'2'" in str(error.value)


def test_unknown_option_is_refused() -> None:
    """An option the game does not have is refused, naming the game's options."""
    with pytest.raises(ConfigError, match=r"no option 'trumps'.*match_deals"):
        OLDMEN.spec.config(4, {"trumps": "red"})


def test_deals_of_one_seed_differ_between_deals() -> None:
    """The second deal of a match is a fresh shuffle, not a copy of the first."""
    first = deal_events(1, 4, b"same", RULES)
    second = deal_events(2, 4, b"same", RULES)
    hands = [[as_cards(e.hand_dealt.cards) for e in of_kind(d, "hand_dealt")] for d in (first, second)]
    assert hands[0] != hands[1]
    assert second[0].start_player_drawn.deal == 2
