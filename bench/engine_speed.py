"""Engine benchmark: seeded random self-play of every registered game, in process, through the engine contract.

Usage: python bench/engine_speed.py [--games N] [--game NAME]

For every game in ``engines.registry.GAMES`` (default options) and every seat count in its spec's range, N
seeded games are played to the end by picking a pending seat and one of its legal commands at random. Per
row it reports:

* games/s: whole games (setup included) per second of wall time, random choices and views included;
* commands per game, and the median and p99 cost of one command in µs, where a command is
  ``legal_commands(state, seat)`` + ``engines.contract.advance`` (the checks, ``decide`` and ``evolve`` of its events)
  (the random choice and ``pending`` are not timed);
* the median cost of building the acting seat's GetView content (``engines.envelope.view_envelope``:
  board, pending seats, legal commands), which a client over the server needs before each move (not
  part of the command time);
* the final state's size (``engines.snapshot.encode_state``, what a snapshot stores) and the event log's size
  (serialized events), medians over the games.

The target is a median below 50 µs per command; each row says whether it meets it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from engines.contract import AnyGame, GameConfig, advance, fold
from engines.envelope import view_envelope
from engines.registry import GAMES, get_game
from engines.snapshot import encode_state

TARGET_MEDIAN_US = 50.0
DEFAULT_GAMES = 200
MAX_COMMANDS = 20_000  # a random game still running after this many commands is a bug worth a clear error


@dataclass
class Row:
    """Measurements of one (game, seat count)."""

    game: str
    seats: int
    games: int = 0
    seconds: float = 0.0
    command_ns: list[int] = field(default_factory=list)
    view_ns: list[int] = field(default_factory=list)
    state_bytes: list[int] = field(default_factory=list)
    log_bytes: list[int] = field(default_factory=list)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank; values need not be sorted)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))
    return ordered[index]


def play_one(game: AnyGame, config: GameConfig, seed: int, row: Row) -> None:
    """Play one seeded random game to its end, adding its command timings and sizes to ``row``."""
    chooser = random.Random(seed)
    setup = game.start(config, seed.to_bytes(8, "big"))
    log_bytes = sum(len(e.SerializeToString()) for e in setup)
    state = fold(game, setup)
    clock = time.perf_counter_ns
    for _ in range(MAX_COMMANDS):
        if game.is_over(state):
            break
        seat = chooser.choice(sorted(game.pending(state)))
        started = clock()
        view_envelope(game, state, seat, game_id="bench", version=1)
        row.view_ns.append(clock() - started)
        started = clock()
        legal = game.legal_commands(state, seat)
        listed = clock()
        command = chooser.choice(legal)
        chosen = clock()
        events, state = advance(game, state, seat, command)
        row.command_ns.append(listed - started + clock() - chosen)
        log_bytes += sum(len(e.SerializeToString()) for e in events)
    else:
        raise RuntimeError(
            f"{game.spec.name} ({config.seats} seats, seed {seed}) did not end in {MAX_COMMANDS} commands"
        )
    row.state_bytes.append(len(encode_state(state)))
    row.log_bytes.append(log_bytes)


def measure(game: AnyGame, seats: int, games: int) -> Row:
    """Play ``games`` seeded games of ``game`` with ``seats`` seats."""
    row = Row(game=game.spec.name, seats=seats, games=games)
    config = game.spec.config(seats)
    started = time.perf_counter()
    for index in range(games):
        play_one(game, config, seed=1_000_003 * seats + index, row=row)
    row.seconds = time.perf_counter() - started
    return row


HEADER = (
    "game",
    "seats",
    "games",
    "games/s",
    "cmds/game",
    "median µs",
    "p99 µs",
    "view µs",
    "state B",
    "log B",
    "target",
)


def cells(row: Row) -> tuple[str, ...]:
    """One table line."""
    median_us = statistics.median(row.command_ns) / 1000
    return (
        row.game,
        str(row.seats),
        str(row.games),
        f"{row.games / row.seconds:.1f}",
        f"{len(row.command_ns) / row.games:.1f}",
        f"{median_us:.1f}",
        f"{percentile(row.command_ns, 0.99) / 1000:.1f}",
        f"{statistics.median(row.view_ns) / 1000:.1f}",
        f"{statistics.median(row.state_bytes):.0f}",
        f"{statistics.median(row.log_bytes):.0f}",
        "ok" if median_us < TARGET_MEDIAN_US else "MISSED",
    )


def print_table(lines: list[tuple[str, ...]]) -> None:
    """A markdown table, columns padded."""
    widths = [max(len(line[i]) for line in [HEADER, *lines]) for i in range(len(HEADER))]
    for index, line in enumerate([HEADER, *lines]):
        print("| " + " | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) + " |")
        if index == 0:
            print("|" + "|".join("-" * (width + 2) for width in widths) + "|")


def selected_games(name: str | None) -> tuple[AnyGame, ...]:
    """Every registered game, or the one named (exit with the known names if there is none)."""
    if name is None:
        return GAMES
    game = get_game(name)
    if game is None:
        known = ", ".join(g.spec.name for g in GAMES)
        raise SystemExit(f"bench/engine_speed.py: no game {name!r}; known games: {known}")
    return (game,)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"games per row (default {DEFAULT_GAMES})")
    parser.add_argument("--game", default=None, help="measure only this game (default: every registered game)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the table and the target; exit status 0 even when a row misses it (it is a report)."""
    args = parse_args(argv)
    games = selected_games(args.game)
    print(
        f"Engine self-play, {args.games} seeded random games per row, default options, Python {sys.version.split()[0]}"
    )
    print(
        "A command = legal_commands + step (checks + decide) + evolve of its events; view = view_envelope for the seat."
    )
    lines: list[tuple[str, ...]] = []
    for game in games:
        for seats in range(game.spec.min_seats, game.spec.max_seats + 1):
            lines.append(cells(measure(game, seats, args.games)))
    print()
    print_table(lines)
    met = sum(line[-1] == "ok" for line in lines)
    print(f"\nTarget: median < {TARGET_MEDIAN_US:.0f} µs per command. Rows meeting it: {met}/{len(lines)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
