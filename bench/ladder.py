"""Ladder benchmark: many bots connected to one standing ladder for a while.

Usage: python bench/ladder.py [--bots N] [--greedy G] [--game NAME] [--seats MIN-MAX] [--seconds S]
       [--sigma X] [--compare-duplicate] [--compare-direct] [--json]

The server (build_app with an embedded Redis in a temporary directory) runs in this process; the bots run
in a second process (``parlour.runner.run_bot``, one BotService stream each, joining the ladder after each
connection), so their CPU is not the server's. G of the N bots are greedy, the others random. After
``--seconds`` of play it reports, from the ladder's own log:

- games rated, and games per bot per hour;
- the time from "free" to "seated": for every table a bot was seated at after its first, the time from
  the result of its previous table to the new table's scheduling (median and p99);
- the server's CPU per rated game (this process's CPU over the window, divided by the games rated in it);
- games per bot until its online rating's uncertainty (sigma) falls below ``--sigma`` (median over the bots
  that got there, and how many did);
- whether the batch strengths put every greedy bot above every random one, and how many greedy/random pairs
  have apart 95% intervals.

With ``--compare-duplicate`` the same run is made twice, the ladder dealing every table afresh and then
with duplicate deals (each group plays its deal once per seat rotation), and both are reported: how fast
the ratings settle and how well they separate the bots, openskill alone against duplicate deals and
openskill.

With ``--compare-direct`` the same bots then play the same game directly for as long, without a ladder:
groups of the largest table size each create a game (GameService CreateGame), claim its seats and play
it through GameService (``parlour.play.play_seat``), again and again; the server's CPU per finished game
is reported next to the ladder's, so the ladder's own cost per game shows.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TypeVar

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournament import ADMIN, BOT_KEY, bench_settings  # noqa: E402  # bench/, the script's own folder

from parlour.bots import make_bot  # noqa: E402
from parlour.client import GameClient  # noqa: E402
from parlour.play import play_seat  # noqa: E402
from parlour.ratings import OnlineRatings, Placing, RatedGame  # noqa: E402
from parlour.runner import run_bot  # noqa: E402
from parlour.v1 import tournament_service_pb2 as pb  # noqa: E402
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc  # noqa: E402
from service.bootstrap import build_app  # noqa: E402
from service.logs import configure_logging  # noqa: E402

T = TypeVar("T")


def bot_names(bots: int, greedy: int) -> list[str]:
    """The bots' names: the greedy ones first."""
    return [f"greedy-{i}" for i in range(greedy)] + [f"random-{i}" for i in range(bots - greedy)]


def play_bots(target: str, ladder_id: str, names: list[str], seconds: float) -> None:
    """Bot process: every bot joins the ladder and plays for ``seconds``."""

    async def join(name: str) -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            request = pb.RegisterBotRequest(tournament_id=ladder_id, bot_name=name, bot_key=BOT_KEY)
            await pb_grpc.TournamentServiceStub(channel).RegisterBot(request)

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(seconds, stop.set)
        await asyncio.gather(
            *(
                run_bot(
                    target,
                    name,
                    BOT_KEY,
                    functools.partial(make_bot, name.split("-")[0], seed=name),
                    stop=stop,
                    on_welcome=functools.partial(join, name),
                )
                for name in names
            )
        )

    asyncio.run(main())


def play_direct(target: str, game: str, groups: list[list[str]], seconds: float) -> int:
    """Bot process: each group plays ``game`` directly (create, claim every seat, play) again and again for
    ``seconds``; returns the games finished."""

    async def group_plays(client: GameClient, names: list[str], stop: asyncio.Event) -> int:
        finished = 0
        while not stop.is_set():
            summary = await client.create_game(game, len(names))
            seats = [await client.claim_seat(summary.game_id, name) for name in names]
            bots = [make_bot(name.split("-")[0], game, seed=f"{name}-{finished}") for name in names]
            await asyncio.gather(
                *(
                    play_seat(client, summary.game_id, seat, token, bot)
                    for (seat, token), bot in zip(seats, bots, strict=True)
                )
            )
            finished += 1
        return finished

    async def all_groups() -> int:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(seconds, stop.set)
        async with GameClient(target, api_key="") as client:
            return sum(await asyncio.gather(*(group_plays(client, names, stop) for names in groups)))

    return asyncio.run(all_groups())


async def ladder_log(stub: pb_grpc.TournamentServiceStub, ladder_id: str) -> list[pb.TournamentEvent]:
    """The ladder's log as far as its standings count now (its stream never ends)."""
    now = (await stub.GetStandings(pb.GetStandingsRequest(tournament_id=ladder_id))).tournament
    events: list[pb.TournamentEvent] = []
    stream = stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=ladder_id))
    scheduled = finished = 0
    async for reply in stream:
        events.append(reply.event)
        scheduled += reply.event.HasField("table_scheduled")
        finished += reply.event.HasField("table_finished")
        if scheduled >= now.games_scheduled and finished >= now.games_finished:
            stream.cancel()
            break
    return events


def seat_waits_ms(events: list[pb.TournamentEvent]) -> list[float]:
    """For every table a bot joined after its first: ms from its previous table's result to this table."""
    seats: dict[str, list[str]] = {}
    freed: dict[str, float] = {}
    waits: list[float] = []
    for event in events:
        at = event.recorded_at.ToMilliseconds()
        if event.HasField("table_scheduled"):
            seats[event.table_scheduled.game_id] = list(event.table_scheduled.seats)
            for bot in event.table_scheduled.seats:
                if bot in freed:
                    waits.append(at - freed.pop(bot))
        elif event.HasField("table_finished"):
            for bot in seats.get(event.table_finished.game_id, []):
                freed[bot] = at
    return waits


def rated_games(events: list[pb.TournamentEvent]) -> list[RatedGame]:
    """The rated games in log order."""
    return [
        RatedGame(e.table_finished.game_id, tuple(Placing(r.player_name, r.rank) for r in e.table_finished.results))
        for e in events
        if e.HasField("table_finished")
    ]


def games_to_settle(games: list[RatedGame], sigma: float) -> list[int]:
    """Per bot that got there: its games until its online sigma fell below ``sigma``."""
    history = OnlineRatings.of(games).history
    return [next(r.games for r in h if r.sigma < sigma) for h in history.values() if any(r.sigma < sigma for r in h)]


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank); 0 for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def in_bot_process(function: Callable[..., T], *args: object) -> Awaitable[T]:
    """Run ``function(*args)`` in a fresh process (the bots' CPU is not the server's)."""
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    future = asyncio.get_running_loop().run_in_executor(pool, functools.partial(function, *args))
    future.add_done_callback(lambda _: pool.shutdown(wait=False))
    return future


async def measure(args: argparse.Namespace, duplicate: bool) -> dict[str, float]:
    """Run the ladder (with ``duplicate`` deals or not) for ``args.seconds`` and return the figures."""
    low, _, high = args.seats.partition("-")
    with tempfile.TemporaryDirectory() as data:
        app = build_app(bench_settings(data, max_tournament_bots=max(64, args.bots)))
        await app.start()
        target = f"127.0.0.1:{app.grpc_port}"
        try:
            async with grpc.aio.insecure_channel(target) as channel:
                stub = pb_grpc.TournamentServiceStub(channel)
                ladder = pb.TournamentSettings(
                    name="bench",
                    game=args.game,
                    table_size=int(high or low),
                    min_table_size=int(low),
                    format=pb.TOURNAMENT_FORMAT_LADDER,
                    duplicate_seeds=duplicate,
                )
                admin = (("x-parlour-admin-key", ADMIN),)
                made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=ladder), metadata=admin)
                ladder_id = made.tournament.tournament_id
                await stub.StartTournament(pb.StartTournamentRequest(tournament_id=ladder_id), metadata=admin)
                names = bot_names(args.bots, args.greedy)
                cpu, wall = time.process_time(), time.perf_counter()
                await in_bot_process(play_bots, target, ladder_id, names, args.seconds)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                events = await ladder_log(stub, ladder_id)
                final = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=ladder_id))
        finally:
            await app.stop(grace=0)
    games = rated_games(events)
    waits = seat_waits_ms(events)
    settle = games_to_settle(games, args.sigma)
    rows = {s.bot_name: s for s in final.standings}
    greedy = [rows[n] for n in names if n.startswith("greedy") and n in rows]
    randoms = [rows[n] for n in names if n.startswith("random") and n in rows]
    apart = sum(g.strength_low > r.strength_high for g in greedy for r in randoms)
    return {
        "bots": args.bots,
        "games_rated": len(games),
        "games_per_bot_per_hour": len(games) * len(games[0].placings) / max(args.bots, 1) * 3600 / wall if games else 0,
        "seat_wait_p50_ms": statistics.median(waits) if waits else 0.0,
        "seat_wait_p99_ms": percentile(waits, 0.99),
        "server_cpu_ms_per_game": cpu * 1000 / max(len(games), 1),
        "games_to_settle_median": statistics.median(settle) if settle else 0.0,
        "bots_settled": len(settle),
        "greedy_above_random": float(
            bool(greedy and randoms) and min(g.strength for g in greedy) > max(r.strength for r in randoms)
        ),
        "apart_pairs": apart,
        "pairs": len(greedy) * len(randoms),
    }


async def measure_direct(args: argparse.Namespace) -> dict[str, float]:
    """The same bots play the game directly, in groups of the largest table size, for ``args.seconds``."""
    size = int(args.seats.partition("-")[2] or args.seats)
    names = bot_names(args.bots, args.greedy)
    groups = [names[i : i + size] for i in range(0, len(names) - size + 1, size)]
    with tempfile.TemporaryDirectory() as data:
        app = build_app(bench_settings(data, max_tournament_bots=max(64, args.bots)))
        await app.start()
        try:
            cpu = time.process_time()
            games = await in_bot_process(play_direct, f"127.0.0.1:{app.grpc_port}", args.game, groups, args.seconds)
            cpu = time.process_time() - cpu
        finally:
            await app.stop(grace=0)
    return {"games": games, "server_cpu_ms_per_game": cpu * 1000 / max(games, 1)}


def main() -> int:
    """Parse the arguments, run, print."""
    parser = argparse.ArgumentParser(description="Parlour ladder benchmark (see the module docstring).")
    parser.add_argument("--bots", type=int, default=200, help="bots connected to the ladder (default 200)")
    parser.add_argument("--greedy", type=int, default=0, help="how many of them are greedy (default: a third)")
    parser.add_argument("--game", default="libertalia", help="the ladder's game (default libertalia)")
    parser.add_argument("--seats", default="3-4", help="seats per table, N or MIN-MAX (default 3-4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the bots play (default 60)")
    parser.add_argument(
        "--sigma", type=float, default=6.0, help="the uncertainty a bot has settled under (default 6; it starts at 8.3)"
    )
    parser.add_argument(
        "--compare-duplicate", action="store_true", help="run again with duplicate deals and report both"
    )
    parser.add_argument(
        "--compare-direct", action="store_true", help="then play the same game directly, without a ladder"
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args()
    args.greedy = args.greedy or args.bots // 3
    configure_logging("warning", json=True)
    modes = [False, True] if args.compare_duplicate else [False]
    results = {}
    for duplicate in modes:
        figures = asyncio.run(measure(args, duplicate))
        results["duplicate" if duplicate else "fresh"] = figures
        report(args, figures, duplicate)
    if args.compare_direct:
        direct = results["direct"] = asyncio.run(measure_direct(args))
        ladder, alone = results["fresh"]["server_cpu_ms_per_game"], direct["server_cpu_ms_per_game"]
        print(
            f"played directly: {direct['games']:.0f} games, server CPU per game {alone:.0f} ms; "
            f"the ladder's is {ladder / max(alone, 1e-9):.2f} times that"
        )
    if args.json:
        print(json.dumps(results))
    return 0


def report(args: argparse.Namespace, figures: dict[str, float], duplicate: bool) -> None:
    """Print one run's figures."""
    deals = "duplicate deals" if duplicate else "every table dealt afresh"
    print(
        f"Ladder of {args.game}, {args.bots} bots ({args.greedy} greedy), tables of {args.seats}, "
        f"{args.seconds:g} s, {deals}"
    )
    print(f"games rated: {figures['games_rated']}, {figures['games_per_bot_per_hour']:.0f} games per bot per hour")
    print(f"free to seated: p50 {figures['seat_wait_p50_ms']:.0f} ms, p99 {figures['seat_wait_p99_ms']:.0f} ms")
    print(f"server CPU per rated game: {figures['server_cpu_ms_per_game']:.0f} ms")
    print(
        f"games until sigma < {args.sigma:g}: median {figures['games_to_settle_median']:g} "
        f"({figures['bots_settled']} of {args.bots} bots got there)"
    )
    print(
        f"batch strengths: every greedy bot above every random one: {bool(figures['greedy_above_random'])}; "
        f"greedy/random pairs with apart 95% intervals: {figures['apart_pairs']} of {figures['pairs']}\n"
    )


if __name__ == "__main__":
    sys.exit(main())
