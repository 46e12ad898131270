"""Scoring and the tie-break chain of a game and of a two-game match (rules sections 4 and 5; D3, D14, D15)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines.oldmen import OLDMEN
from engines.oldmen.data import Card
from engines.oldmen.evolve import evolve
from engines.oldmen.scoring import match_result
from engines.oldmen.state import Phase, Saved, SeatState, State
from parlour.v1 import oldmen_pb2 as pb
from tests.engines.oldmen.helpers import (
    ALL_ORANGUTANS,
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

RULES = OLDMEN.rules
TABLE = {o.id: o for o in RULES.orangutans}


def _saved(orangutan_id: str, *tucked: str) -> Saved:
    return Saved(TABLE[orangutan_id], cards(*tucked))


def test_score_is_vp_minus_one_per_card_and_two_per_brown() -> None:
    """A seat scores its orangutans' VP, -1 per non-brown card tucked or left in the pool, -2 per brown (D3)."""
    player = SeatState(
        pool=cards("green 3", "brown 4"),
        saved=(_saved("O05", "red 1", "brown 2"), _saved("O01")),
    )
    assert player.orangutan_points == 10
    assert player.penalty(RULES) == 1 + 2 + 1 + 2
    assert player.score(RULES) == 10 - 6


def test_score_may_be_negative() -> None:
    """A seat that saved nothing and holds brown cards ends below zero."""
    assert SeatState(pool=cards("brown 9", "brown 10", "red 1")).score(RULES) == -5


def _last_round(pools: dict[int, tuple[Card, ...]], seats: int = 3) -> State:
    """Round 10 of a single game, about to be played: seat 0 will win, seat 1 come second."""
    hands = fill_hands(seats, {0: ["blue 10"], 1: ["blue 9"], 2: ["blue 1"], 3: ["blue 2"]}, size=1)
    order = ("O15", "O01", "O02", "O03", *[o for o in ALL_ORANGUTANS if o not in ("O15", "O01", "O02", "O03")])
    state = setup(hands[:seats], order=order)
    players = [replace(p, pool=pools.get(seat, ())) for seat, p in enumerate(state.players)]
    return replace(state, round=10, players=tuple(players))


def test_game_ends_after_round_ten_with_scores() -> None:
    """Saving works in round 10; then the deal's scores are recorded and the game is over."""
    state = _last_round({0: cards("yellow 4", "brown 2"), 2: cards("red 8", "brown 5")})
    state, _ = play_trick(state, "blue 10", "blue 9", "blue 1")
    state, events = run(state, [(0, take(2)), (1, take(0)), (0, save("O01")), (1, decline())])
    assert kinds(events)[-2:] == ["deal_finished", "match_finished"]
    assert OLDMEN.is_over(state) and OLDMEN.pending(state) == frozenset()
    assert all(p.hand == () for p in state.players)
    scores = {s.seat: s for s in of_kind(events, "deal_finished")[0].deal_finished.scores}
    # seat 0 spent yellow 4 on O01 and tucked blue 1 and brown 2; seat 1 holds blue 10; seat 2 never won
    assert (scores[0].score, scores[0].orangutan_points, scores[0].penalty) == (0, 3, 3)
    assert list(scores[0].orangutan_vps) == [3]
    assert scores[1].score == -1
    assert scores[2].score == -3  # cards left in a pool count even for a seat that never won this game
    finished = of_kind(events, "match_finished")[0].match_finished
    assert [(t.seat, t.score) for t in finished.totals] == [(0, 0), (1, -1), (2, -3)]
    assert list(finished.winners) == [0]
    result = OLDMEN.result(state)
    assert result is not None and result.winners == (0,)
    assert [(s.seat, s.score, s.rank) for s in result.standings] == [(0, 0, 1), (1, -1, 2), (2, -3, 3)]


def test_spent_cards_cost_nothing() -> None:
    """Cards paid for an orangutan go to the discard pile and are not counted at the end."""
    state = _last_round({0: cards("red 1", "red 2", "yellow 1", "yellow 2")})
    state, _ = play_trick(state, "blue 10", "blue 9", "blue 1")
    state, events = run(state, [(0, take(2)), (1, take(0)), (0, save("O15")), (1, decline())])
    scores = {s.seat: s.score for s in of_kind(events, "deal_finished")[0].deal_finished.scores}
    assert scores[0] == 15 - 1  # O15 paid exactly; only the blue 1 won this round is tucked
    assert scores[1] == -1


def test_no_result_before_the_end() -> None:
    """A running game has no result yet."""
    assert OLDMEN.result(setup(fill_hands(3, {}))) is None


def _ended(scores: list[int], vps: list[tuple[int, ...]]) -> State:
    """A finished match whose seats have these totals and these saved orangutans' VP (all deals together)."""
    state = setup(fill_hands(len(scores), {}))
    players = tuple(SeatState(match_score=s, match_vps=v) for s, v in zip(scores, vps, strict=True))
    return replace(state, players=players, phase=Phase.OVER)


def _ranks(state: State) -> dict[int, int]:
    return {s.seat: s.rank for s in match_result(state).standings}


def test_highest_score_wins_whatever_the_orangutans() -> None:
    """The score decides first; bigger orangutans only break ties."""
    assert _ranks(_ended([7, 8, 7], [(15,), (3, 3, 3), (11, 7)])) == {1: 1, 0: 2, 2: 3}


def test_tie_broken_by_most_valuable_orangutan() -> None:
    """Among tied seats, the one whose best saved orangutan is worth more wins (tie-break a)."""
    assert _ranks(_ended([10, 10, 10], [(7, 7, 3), (11, 3), (3, 3, 3, 3)])) == {1: 1, 0: 2, 2: 3}


def test_tie_broken_by_next_most_valuable_orangutan() -> None:
    """If the best orangutans are equal, the second best decides, then the third (tie-break b)."""
    assert _ranks(_ended([5, 5, 5], [(11, 7, 3), (11, 7, 7), (11, 3)])) == {1: 1, 0: 2, 2: 3}


def test_missing_orangutan_counts_zero() -> None:
    """A seat that has run out of orangutans counts 0 at that position (tie-break b)."""
    assert _ranks(_ended([3, 3, 3], [(7,), (7, 3), ()])) == {1: 1, 0: 2, 2: 3}


def test_identical_orangutans_share_the_win() -> None:
    """Seats equal in score and in every orangutan share the win (D14)."""
    state = _ended([4, 4, 1, 4], [(7, 3), (3, 7), (15,), (7,)])
    result = match_result(state)
    assert result.winners == (0, 1)
    assert _ranks(state) == {0: 1, 1: 1, 3: 3, 2: 4}


def test_shared_win_is_recorded_in_the_final_event() -> None:
    """MatchFinished lists every winning seat when the win is shared."""
    state = _last_round({0: cards("yellow 4"), 1: cards("yellow 3")})
    state, _ = play_trick(state, "blue 10", "blue 9", "blue 1")
    state, events = run(state, [(0, take(2)), (1, take(0)), (0, save("O03")), (1, save("O01"))])
    # both saved a 3-VP orangutan with one card tucked: 3 - 1 each; seat 2 holds nothing
    finished = of_kind(events, "match_finished")[0].match_finished
    assert sorted(finished.winners) == [0, 1]
    result = OLDMEN.result(state)
    assert result is not None and result.winners == (0, 1)


# One game of the match: per seat, (VP of the orangutans saved, penalty points). Seat 2 always does badly.
Deal = tuple[tuple[tuple[int, ...], int], ...]
BAD = ((), 9)


@pytest.mark.parametrize(
    ("first", "second", "totals", "winners"),
    [
        # totals added: 7 - 3 = 4 beats -1 + 3 = 2
        ((((7,), 0), ((), 1), BAD), (((), 3), ((3,), 0), BAD), (4, 2, -18), (0,)),
        # equal totals: seat 0's orangutan of game 2 breaks the tie (7, 3 against 7)
        ((((7,), 0), ((7,), 0), BAD), (((3,), 3), ((), 0), BAD), (7, 7, -18), (0,)),
        # equal totals and the same orangutans over both games: shared win
        ((((7,), 0), ((3,), 3), BAD), (((3,), 3), ((7,), 0), BAD), (7, 7, -18), (0, 1)),
    ],
)
def test_match_adds_both_games_and_breaks_ties_on_all_orangutans(
    first: Deal, second: Deal, totals: tuple[int, ...], winners: tuple[int, ...]
) -> None:
    """A match winner has the highest sum of the two game scores; ties compare the orangutans of both games (D15)."""
    state = setup(fill_hands(3, {}), match_deals=2)
    by_vp = {o.vp: o for o in RULES.orangutans}
    for number, deal in enumerate((first, second), start=1):
        players = tuple(
            replace(p, saved=tuple(Saved(by_vp[vp], ()) for vp in vps), pool=_pool_of(penalty))
            for p, (vps, penalty) in zip(state.players, deal, strict=True)
        )
        state = evolve(
            replace(state, players=players), pb.OldmenEvent(deal_finished=pb.OldmenDealFinished(deal=number))
        )
    assert tuple(p.match_score for p in state.players) == totals
    assert match_result(state).winners == winners


def _pool_of(penalty: int) -> tuple[Card, ...]:
    """A pool costing exactly ``penalty`` points (non-brown cards, -1 each)."""
    return cards(*[f"green {v}" for v in range(1, penalty + 1)])
