"""The ladder's ratings: the batch Plackett-Luce fit finds the strengths that made the games, with
intervals that hold them, whatever order the games finished in; the online ratings rank like it and keep
every bot's history."""

from __future__ import annotations

import math
import random

import pytest

from parlour.ratings import OnlineRatings, Placing, RatedGame, batch_ratings


def _played(strengths: dict[str, float], games: int, seats: int, seed: int) -> list[RatedGame]:
    """Games of ``seats`` bots drawn from ``strengths``, each finishing order drawn from Plackett-Luce."""
    rng = random.Random(seed)
    played = []
    for number in range(games):
        left = rng.sample(sorted(strengths), seats)
        order = []
        while left:
            chosen = rng.choices(left, [math.exp(strengths[bot]) for bot in left])[0]
            order.append(chosen)
            left.remove(chosen)
        played.append(RatedGame(f"g{number}", tuple(Placing(bot, rank + 1) for rank, bot in enumerate(order))))
    return played


STRENGTHS = {"greedy": 1.2, "half": 0.3, "random": -1.0, "random-2": -1.0}


def test_the_batch_fit_orders_the_bots_as_their_strengths_with_apart_intervals() -> None:
    rated = batch_ratings(_played(STRENGTHS, 300, 3, seed=1))
    assert rated["greedy"].strength > rated["half"].strength > max(rated["random"].strength, rated["random-2"].strength)
    assert rated["greedy"].low > rated["half"].high and rated["half"].low > rated["random"].high
    assert sum(r.games for r in rated.values()) == 300 * 3
    assert abs(sum(r.strength for r in rated.values())) < 1e-9  # relative to the bots' mean


def test_the_batch_intervals_hold_the_true_strengths_about_95_times_in_100() -> None:
    centre = sum(STRENGTHS.values()) / len(STRENGTHS)
    held = total = 0
    for seed in range(40):
        for bot, rating in batch_ratings(_played(STRENGTHS, 120, 3, seed)).items():
            total += 1
            held += rating.low <= STRENGTHS[bot] - centre <= rating.high
    assert 0.88 <= held / total <= 0.995, held / total


def test_the_batch_fit_does_not_depend_on_the_order_games_finished_in_but_the_online_one_does() -> None:
    games = _played(STRENGTHS, 60, 4, seed=2)
    shuffled = random.Random(3).sample(games, len(games))
    assert batch_ratings(shuffled) == batch_ratings(games)
    assert OnlineRatings.of(shuffled).ratings != OnlineRatings.of(games).ratings


def test_tied_bots_are_not_compared_so_a_game_all_tied_tells_nothing() -> None:
    tie = RatedGame("t", (Placing("a", 1), Placing("b", 1), Placing("c", 1)))
    assert {r.strength for r in batch_ratings([tie] * 10).values()} == {0.0}
    split = RatedGame("s", (Placing("a", 1), Placing("b", 1), Placing("c", 3)))
    rated = batch_ratings([split] * 10)
    assert rated["a"].strength == pytest.approx(rated["b"].strength) and rated["a"].strength > rated["c"].strength


def test_the_online_ratings_rank_by_the_conservative_ordinal_and_keep_each_bots_history() -> None:
    games = _played(STRENGTHS, 200, 3, seed=4)
    online = OnlineRatings.of(games)
    by_ordinal = sorted(online.ratings, key=lambda bot: -online.ratings[bot].ordinal)
    assert by_ordinal[0] == "greedy" and set(by_ordinal[-2:]) == {"random", "random-2"}
    for bot, history in online.history.items():
        assert [r.games for r in history] == list(range(1, len(history) + 1))
        assert [r.game_id for r in history] == [g.game_id for g in games if any(p.bot == bot for p in g.placings)]
        assert history[-1] == online.ratings[bot]
        assert history[-1].ordinal == history[-1].mu - 3 * history[-1].sigma
        assert history[-1].sigma < history[0].sigma  # settles as it plays
    assert online.rating("newcomer").games == 0


@pytest.mark.parametrize(
    ("placings", "says"),
    [
        ((Placing("a", 1),), "needs two or more"),
        ((Placing("a", 1), Placing("a", 2)), "places a bot twice"),
        ((Placing("a", 0), Placing("b", 1)), "ranks start at 1"),
    ],
)
def test_a_game_that_cannot_be_rated_is_refused_with_a_sentence(placings: tuple[Placing, ...], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        RatedGame("x", placings)


def test_the_batch_fit_is_choixs_maximum_a_posteriori_estimate() -> None:
    import choix

    from parlour.ratings import PRIOR_SD

    games = _played(STRENGTHS, 80, 3, seed=5)
    bots = sorted(STRENGTHS)
    choices = [
        (bots.index(p.bot), tuple(sorted(bots.index(q.bot) for q in g.placings if q.rank > p.rank)))
        for g in games
        for p in g.placings
        if p.rank < 3
    ]
    # choix penalizes alpha * |theta|^2: a Gaussian prior of variance 1 / (2 alpha).
    reference = choix.opt_top1(len(bots), choices, alpha=1 / (2 * PRIOR_SD**2), tol=1e-12)
    rated = batch_ratings(games)
    for bot, strength in zip(bots, reference - reference.mean(), strict=True):
        assert rated[bot].strength == pytest.approx(strength, abs=1e-6)
