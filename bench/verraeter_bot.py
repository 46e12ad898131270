"""Benchmark of the greedy Verräter bot: its win rate against random bots, next to the random baseline.

Usage: python bench/verraeter_bot.py [--games N] [--seats 3 4 5]

For each seat count, N seeded games are played in-process with the greedy bot in one seat (rotating the
seat from game to game) and random bots in the others, every bot deciding from its GameView. The same
seeds are played with random bots only, giving the baseline win rate of the rotating seat. Shared wins
count as a fraction.
"""

from __future__ import annotations

import argparse
import statistics

from engines.contract import GameConfig, fold, step
from engines.envelope import unwrap_command, view_envelope
from engines.verraeter import VERRAETER
from parlour.bots.base import Bot, RandomBot
from parlour.bots.verraeter import VerraeterGreedyBot


def play_game(config: GameConfig, seed: str, greedy_seat: int | None) -> tuple[float, int]:
    """One game: the rotating seat's share of the win and its final VP."""
    bots: list[Bot] = [
        VerraeterGreedyBot(f"{seed}-{s}") if s == greedy_seat else RandomBot(f"{seed}-{s}") for s in range(config.seats)
    ]
    state = fold(VERRAETER, VERRAETER.start(config, seed.encode()))
    while not VERRAETER.is_over(state):
        seat = min(VERRAETER.pending(state))
        command = unwrap_command(VERRAETER, bots[seat].choose(view_envelope(VERRAETER, state, seat)))
        state = fold(VERRAETER, step(VERRAETER, state, seat, command), state)
    result = VERRAETER.result(state)
    assert result is not None
    seat = greedy_seat if greedy_seat is not None else 0
    share = 1 / len(result.winners) if seat in result.winners else 0.0
    return share, next(s.score for s in result.standings if s.seat == seat)


def run(seats: int, games: int) -> None:
    """Play ``games`` games with and without the greedy bot and print the comparison."""
    config = VERRAETER.spec.config(seats)
    greedy = [play_game(config, f"bench-{seats}-{g}", g % seats) for g in range(games)]
    baseline = [play_game(config, f"bench-{seats}-{g}", None) for g in range(games)]
    win = sum(s for s, _ in greedy) / games
    base = sum(s for s, _ in baseline) / games
    greedy_vp = statistics.mean(v for _, v in greedy)
    base_vp = statistics.mean(v for _, v in baseline)
    print(
        f"{seats} players, {games} games: greedy wins {win:.1%} (mean VP {greedy_vp:.1f}); "
        f"random seat wins {base:.1%} (mean VP {base_vp:.1f}); fair share {1 / seats:.1%}"
    )


def main() -> None:
    """Parse the arguments and run the benchmark per seat count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 4, 5])
    args = parser.parse_args()
    for seats in args.seats:
        run(seats, args.games)


if __name__ == "__main__":
    main()
