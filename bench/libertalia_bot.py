"""Benchmark of the greedy Libertalia bot: its win rate against random bots, next to the random baseline.

Usage: python bench/libertalia_bot.py [--games N] [--seats 2 3 4 5 6] [--board calm|stormy|uncharted]

For each seat count, N seeded games are played in-process with the greedy bot in one seat (rotating the
seat from game to game) and random bots in the others, every bot deciding from its GameView (built with
``engines.envelope.view_envelope``). The same seeds are played with random bots only, giving the baseline
win rate of the rotating seat.
"""

from __future__ import annotations

import argparse
import statistics

from engines.contract import GameConfig, fold, step
from engines.envelope import unwrap_command, view_envelope
from engines.libertalia import LIBERTALIA
from parlour.bots.base import Bot, RandomBot
from parlour.bots.libertalia import LibertaliaGreedyBot


def play_game(config: GameConfig, seed: str, greedy_seat: int | None) -> tuple[float, int]:
    """One game: whether the rotating seat won (1 or 0) and its final score."""
    seats = config.seats
    bots: list[Bot] = [
        LibertaliaGreedyBot(f"{seed}-{s}") if s == greedy_seat else RandomBot(f"{seed}-{s}") for s in range(seats)
    ]
    state = fold(LIBERTALIA, LIBERTALIA.start(config, seed.encode()))
    while not LIBERTALIA.is_over(state):
        seat = min(LIBERTALIA.pending(state))
        command = unwrap_command(LIBERTALIA, bots[seat].choose(view_envelope(LIBERTALIA, state, seat)))
        state = fold(LIBERTALIA, step(LIBERTALIA, state, seat, command), state)
    result = LIBERTALIA.result(state)
    assert result is not None
    seat = greedy_seat if greedy_seat is not None else 0
    return (1.0 if seat in result.winners else 0.0), next(s.score for s in result.standings if s.seat == seat)


def run(seats: int, games: int, board: str) -> None:
    """Play ``games`` games with and without the greedy bot and print the comparison."""
    config = LIBERTALIA.spec.config(seats, {"board": board})
    greedy = [play_game(config, f"bench-{seats}-{g}", g % seats) for g in range(games)]
    baseline = [play_game(config, f"bench-{seats}-{g}", None) for g in range(games)]
    win, base = sum(w for w, _ in greedy) / games, sum(w for w, _ in baseline) / games
    print(
        f"{seats} players, {board}, {games} games: greedy wins {win:.1%} (mean score "
        f"{statistics.mean(s for _, s in greedy):.1f}); random seat wins {base:.1%} (mean score "
        f"{statistics.mean(s for _, s in baseline):.1f}); fair share {1 / seats:.1%}"
    )


def main() -> None:
    """Parse the arguments and run the benchmark per seat count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    parser.add_argument("--board", default="calm", choices=["calm", "stormy", "uncharted"])
    args = parser.parse_args()
    for seats in args.seats:
        run(seats, args.games, args.board)


if __name__ == "__main__":
    main()
