"""Whole games and two-game matches played with seeded random legal moves (rules sections 3-5)."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.contract import fold
from engines.oldmen import OLDMEN
from engines.oldmen.data import BROWN, DECK, Card
from engines.oldmen.state import Phase
from engines.playout import Playout, play
from parlour.v1 import oldmen_pb2 as pb
from tests.engines.oldmen.helpers import kinds, of_kind

SEEDS = [b"game-1", b"game-2", b"game-3"]


def _play(seats: int, seed: bytes, match_deals: str = "1") -> Playout:
    return play(OLDMEN, OLDMEN.spec.config(seats, {"match_deals": match_deals}), seed)


def _deals(events: list[pb.OldmenEvent]) -> list[list[pb.OldmenEvent]]:
    """The events of each deal, from its StartPlayerDrawn to its DealFinished."""
    deals: list[list[pb.OldmenEvent]] = []
    for event in events:
        if event.WhichOneof("kind") == "start_player_drawn":
            deals.append([])
        if deals:
            deals[-1].append(event)
    return deals


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("seed", SEEDS)
def test_a_game_is_ten_rounds(seats: int, seed: bytes) -> None:
    """A game is exactly ten tricks, each with two takes, one discard and two save-or-pass decisions."""
    (deal,) = _deals(_play(seats, seed).events)
    counts = Counter(kinds(deal))
    assert counts["trick_ranked"] == 10
    assert counts["card_played"] == 10 * seats
    assert counts["card_taken"] == 20 and counts["cards_discarded"] == 10
    assert counts["orangutan_saved"] + counts["save_declined"] == 20
    assert counts["deal_finished"] == 1
    assert all(len(e.cards_discarded.cards) == seats - 2 for e in of_kind(deal, "cards_discarded"))


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("seed", SEEDS)
def test_every_won_card_is_discarded_tucked_or_left_in_a_pool(seats: int, seed: bytes) -> None:
    """At the end each of the 10N played cards is in the discard pile, under an orangutan or in a pool."""
    game = _play(seats, seed)
    state = game.state
    assert all(p.hand == () for p in state.players)
    played = [Card.from_pb(e.card_played.card) for e in of_kind(game.events, "card_played")]
    held = list(state.discard)
    for player in state.players:
        held += list(player.pool) + [c for s in player.saved for c in s.tucked]
    assert Counter(held) == Counter(played)
    assert len(played) == len(set(played)) == 10 * seats


@pytest.mark.parametrize("seed", SEEDS)
def test_recorded_scores_follow_the_scoring_rule(seed: bytes) -> None:
    """Each recorded score is VP saved minus 1 per non-brown and 2 per brown card tucked or left in the pool."""
    game = _play(4, seed)
    scores = of_kind(game.events, "deal_finished")[0].deal_finished.scores
    for score in scores:
        player = game.state.players[score.seat]
        left = list(player.pool) + [c for s in player.saved for c in s.tucked]
        penalty = sum(2 if c.colour == BROWN else 1 for c in left)
        vps = sorted((s.orangutan.vp for s in player.saved), reverse=True)
        assert (score.orangutan_points, score.penalty, list(score.orangutan_vps)) == (sum(vps), penalty, vps)
        assert score.score == sum(vps) - penalty


@pytest.mark.parametrize("seats", [3, 4])
def test_match_plays_two_fresh_games_and_adds_the_scores(seats: int) -> None:
    """In a match the second game is a fresh deal with its own start-player draw, and totals are the sums."""
    game = _play(seats, b"match", match_deals="2")
    events = game.events
    deals = _deals(events)
    assert len(deals) == 2
    assert [d[0].start_player_drawn.deal for d in deals] == [1, 2]
    first_draws = [d for d in deals[1][0].start_player_drawn.draws if d.attempt == 1]
    assert [d.seat for d in first_draws] == list(range(seats))

    start_of_second = len(events) - len(deals[1])
    setup_end = start_of_second + seats + 3  # StartPlayerDrawn, HandDealt per seat, deck, row
    state = fold(OLDMEN, events[:setup_end])
    assert state is not None
    assert kinds(events[start_of_second:setup_end])[-1] == "orangutans_revealed"
    assert state.deal == 2 and state.round == 1 and state.phase is Phase.PLAY
    assert state.leader == deals[1][0].start_player_drawn.start_seat
    assert all(len(p.hand) == 10 and p.pool == () and p.saved == () for p in state.players)
    assert state.discard == () and len(state.row) == seats + 1 and len(state.deck) == 16 - seats - 1
    hands = [c for p in state.players for c in p.hand]
    assert len(set(hands)) == 10 * seats and set(hands) <= set(DECK)

    per_deal = [{s.seat: s.score for s in d.deal_finished.scores} for d in of_kind(events, "deal_finished")]
    assert [p.match_score for p in state.players] == [per_deal[0][s] for s in range(seats)]
    finished = of_kind(events, "match_finished")[0].match_finished
    assert {t.seat: t.score for t in finished.totals} == {s: per_deal[0][s] + per_deal[1][s] for s in range(seats)}
    result = OLDMEN.result(game.state)
    assert result is not None and tuple(finished.winners) == result.winners


def test_single_game_ends_after_one_deal() -> None:
    """With match_deals 1 the game ends after the first deal and reveals the seed."""
    game = _play(3, b"single")
    assert kinds(game.events)[-2:] == ["deal_finished", "match_finished"]
    assert len(of_kind(game.events, "start_player_drawn")) == 1
    assert of_kind(game.events, "match_finished")[0].match_finished.seed == b"single"
    assert OLDMEN.is_over(game.state) and OLDMEN.legal_commands(game.state, 0) == []


def test_won_cards_never_return_to_the_hand() -> None:
    """Won cards go to the pool, never into the hand: hand sizes only ever shrink during a game (D19)."""
    game = _play(4, b"hands")
    state = fold(OLDMEN, game.setup)
    assert state is not None
    sizes = [len(p.hand) for p in state.players]
    for move in game.moves:
        state = fold(OLDMEN, move.events, state)
        assert state is not None
        now = [len(p.hand) for p in state.players]
        assert all(a <= b for a, b in zip(now, sizes, strict=True))
        sizes = now
