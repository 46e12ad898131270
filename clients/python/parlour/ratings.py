"""Ratings of bots from the placings of finished games: the online rating a ladder updates after each
game, and the batch estimate anyone can recompute from all the games, with an interval per bot.

Both read the same input, a sequence of :class:`RatedGame` (who finished where), and are pure: the same
games give the same numbers, on the server and offline (``parlour ladder verify``).

* :class:`OnlineRatings`: OpenSkill's Plackett-Luce model, updated game by game in the order given
  (mean ``mu``, uncertainty ``sigma`` and the conservative ``ordinal`` = mu - 3 sigma that ranks), with
  each bot's history. It depends on the order the games finished in.
* :func:`batch_ratings`: the maximum a posteriori Plackett-Luce strengths of all the games at once (a
  Gaussian prior of standard deviation :data:`PRIOR_SD` on each log-strength), with a 95% interval from
  the curvature of the posterior at its peak (the Laplace approximation). It does not depend on the order.
  It is found by Newton's method over whole numpy arrays (a fit of 10,000 four-player games takes well
  under a second; choix's optimizers, which evaluate the objective in a Python loop, took a second for a
  hundred games), and checked against choix's in the tests.

A game's placing is a rank, 1 the best; equal ranks are a tie. In the batch fit each bot of a game is
counted as chosen, in Plackett-Luce's sense, before every bot ranked below it, and tied bots are not
compared with each other (so a game everyone tied tells nothing).

Needs the ``ratings`` extra (``pip install 'parlour-client[ratings]'``: openskill, numpy).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from openskill.models import PlackettLuce

__all__ = [
    "PRIOR_SD",
    "BatchRating",
    "OnlineRating",
    "OnlineRatings",
    "Placing",
    "RatedGame",
    "batch_ratings",
    "online_update",
]

#: The standard deviation of the batch fit's prior on each bot's log-strength (natural log: a bot one
#: unit stronger than another is e ≈ 2.7 times as likely to be chosen first between the two).
PRIOR_SD = 1.5
_Vector = NDArray[np.float64]
#: The two-sided 95% quantile of the normal distribution (the batch interval's half-width in SDs).
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class Placing:
    """Where one bot finished in one game: ``rank`` 1 is the best; equal ranks are a tie."""

    bot: str
    rank: int


@dataclass(frozen=True)
class RatedGame:
    """One finished game's placings (two or more bots, each once)."""

    game_id: str
    placings: tuple[Placing, ...]

    def __post_init__(self) -> None:
        bots = [p.bot for p in self.placings]
        if len(bots) < 2:
            raise ValueError(f"game {self.game_id} has {len(bots)} placed bot(s): a rated game needs two or more")
        if len(set(bots)) != len(bots):
            raise ValueError(f"game {self.game_id} places a bot twice: each bot is placed once per game")
        if any(p.rank < 1 for p in self.placings):
            raise ValueError(f"game {self.game_id} has a rank below 1: ranks start at 1 (the best)")


@dataclass(frozen=True)
class OnlineRating:
    """A bot's online rating after some game: mean, uncertainty and the conservative ordinal."""

    mu: float
    sigma: float
    games: int
    #: The game after which the bot had this rating ("" before its first game).
    game_id: str = ""

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: the rating a bot is ranked by (it rises as the uncertainty falls)."""
        return self.mu - 3 * self.sigma


@dataclass
class OnlineRatings:
    """OpenSkill Plackett-Luce ratings, updated game by game; :meth:`rate` them in the order they finished."""

    ratings: dict[str, OnlineRating] = field(default_factory=dict)
    #: By bot: its rating after each of its games, oldest first.
    history: dict[str, list[OnlineRating]] = field(default_factory=dict)

    def rating(self, bot: str) -> OnlineRating:
        """The bot's rating now (the model's starting rating before its first game)."""
        model = _model()
        return self.ratings.get(bot) or OnlineRating(model.mu, model.sigma, 0)

    def rate(self, game: RatedGame) -> None:
        """Update the ratings of the game's bots with its placings."""
        before = [self.rating(p.bot) for p in game.placings]
        after = online_update([(r.mu, r.sigma) for r in before], [p.rank for p in game.placings])
        for placing, old, (mu, sigma) in zip(game.placings, before, after, strict=True):
            new = OnlineRating(mu, sigma, old.games + 1, game.game_id)
            self.ratings[placing.bot] = new
            self.history.setdefault(placing.bot, []).append(new)

    @classmethod
    def of(cls, games: Iterable[RatedGame]) -> OnlineRatings:
        """The ratings after ``games``, rated in the order given."""
        ratings = cls()
        for game in games:
            ratings.rate(game)
        return ratings


def online_update(ratings: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """The (mu, sigma) of each player of one game after it, from their (mu, sigma) before and their ranks
    (1 the best; equal ranks tie), by OpenSkill's Plackett-Luce model with its default parameters."""
    model = _model()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    rated = model.rate(teams, ranks=[float(rank) for rank in ranks])
    return [(team[0].mu, team[0].sigma) for team in rated]


@dataclass(frozen=True)
class BatchRating:
    """A bot's batch Plackett-Luce strength relative to the mean of the ladder's bots (natural log) and its
    95% interval."""

    strength: float
    low: float
    high: float
    games: int


def batch_ratings(games: Sequence[RatedGame], prior_sd: float = PRIOR_SD) -> dict[str, BatchRating]:
    """The maximum a posteriori Plackett-Luce strength of every bot in ``games``, with a 95% interval.

    The same games in any order give the same result (bots are indexed in name order, the choices sorted).
    """
    bots = sorted({p.bot for game in games for p in game.placings})
    if not bots:
        return {}
    index = {bot: i for i, bot in enumerate(bots)}
    posterior = _Posterior(len(bots), sorted(_choices(games, index)), 1 / prior_sd**2)
    strengths = posterior.peak()
    # Only differences of strengths are identified (adding a constant to all changes no probability): the
    # interval is of the strength relative to the bots' mean, whose own spread comes from the prior alone.
    centre = np.eye(len(bots)) - 1 / len(bots)
    spread = np.sqrt(np.diag(centre @ np.linalg.inv(posterior.curvature(strengths)) @ centre))
    strengths = strengths - strengths.mean()
    played = dict.fromkeys(bots, 0)
    for game in games:
        for placing in game.placings:
            played[placing.bot] += 1
    return {
        bot: BatchRating(
            strength=float(strengths[i]),
            low=float(strengths[i] - Z_95 * spread[i]),
            high=float(strengths[i] + Z_95 * spread[i]),
            games=played[bot],
        )
        for bot, i in index.items()
    }


class _Posterior:
    """The negative log posterior of Plackett-Luce log-strengths given top-1 choices and a Gaussian prior
    of precision ``alpha``, with its gradient and curvature, computed in whole arrays (one per size of the
    set chosen from), and its peak found by Newton's method (it is strictly convex)."""

    def __init__(self, size: int, choices: Sequence[tuple[int, tuple[int, ...]]], alpha: float) -> None:
        self._size = size
        self._alpha = alpha
        by_size: dict[int, list[tuple[int, ...]]] = {}
        for winner, others in choices:
            by_size.setdefault(len(others) + 1, []).append((winner, *others))
        #: Per set size: the sets chosen from, one row each, the chosen bot first.
        self._sets = [np.array(rows, dtype=np.intp) for _, rows in sorted(by_size.items())]

    def value(self, theta: _Vector) -> float:
        """The negative log posterior at ``theta`` (up to a constant)."""
        total = 0.5 * self._alpha * float(theta @ theta)
        for sets in self._sets:
            chosen = theta[sets]
            top = chosen.max(axis=1)
            total += float(np.sum(top + np.log(np.exp(chosen - top[:, None]).sum(axis=1)) - chosen[:, 0]))
        return total

    def gradient(self, theta: _Vector) -> _Vector:
        """The gradient of :meth:`value` at ``theta``."""
        grad = self._alpha * theta
        for sets in self._sets:
            p = self._probabilities(theta, sets)
            np.add.at(grad, sets, p)
            np.add.at(grad, sets[:, 0], -1.0)
        return grad

    def curvature(self, theta: _Vector) -> _Vector:
        """The Hessian of :meth:`value` at ``theta``: the prior's precision plus diag(p) - p pᵀ per choice."""
        hessian = self._alpha * np.eye(self._size)
        for sets in self._sets:
            p = self._probabilities(theta, sets)
            block = -p[:, :, None] * p[:, None, :]
            block[:, np.arange(sets.shape[1]), np.arange(sets.shape[1])] += p
            np.add.at(hessian, (sets[:, :, None], sets[:, None, :]), block)
        return hessian

    def peak(self) -> _Vector:
        """The log-strengths where the posterior is highest (damped Newton steps until they vanish)."""
        theta = np.zeros(self._size)
        current = self.value(theta)
        for _ in range(100):
            step = np.linalg.solve(self.curvature(theta), self.gradient(theta))
            length = 1.0
            while (trial := self.value(theta - length * step)) > current and length > 1e-6:
                length /= 2
            theta, current = theta - length * step, trial
            if float(np.abs(length * step).max()) < 1e-12:
                break
        return theta

    def _probabilities(self, theta: _Vector, sets: NDArray[np.intp]) -> _Vector:
        chosen = theta[sets]
        weights: _Vector = np.exp(chosen - chosen.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        return weights


def _choices(games: Iterable[RatedGame], index: dict[str, int]) -> Iterable[tuple[int, tuple[int, ...]]]:
    """Plackett-Luce's top-1 choices of each game: every bot chosen among itself and those ranked below it."""
    for game in games:
        for placing in game.placings:
            below = tuple(sorted(index[p.bot] for p in game.placings if p.rank > placing.rank))
            if below:
                yield index[placing.bot], below


@functools.cache
def _model() -> PlackettLuce:
    return PlackettLuce()
