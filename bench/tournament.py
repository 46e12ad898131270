"""Tournament benchmark: games per minute of a round robin of random bots over the network, per game, the
server's CPU per game, and the scheduler's overhead over playing the same games directly.

Usage: python bench/tournament.py [--bots N] [--table-size K] [--rounds R] [--games oldmen,verraeter,...]

The server (build_app with an embedded Redis in a temporary directory) runs in this process; the bots run in
a second process, so their CPU is not the server's. For each game:

a. tournament: a round robin of N random bots in tables of K (C(N, K) games per round, R rounds, all games
   of a round at once), bots connected over BotService; timed from StartTournament until the tournament is
   finished. Reports games/minute and the server process's CPU per game (``time.process_time``).
b. direct: the same number of games, created through GameService by the bot process, each seat played by a
   random bot with ``play_seat`` (the plain game API), the same number in flight at once. Same measures.

The overhead of the scheduler is tournament CPU per game / direct CPU per game - 1 (target: at most 10%);
the wall-clock ratio is printed beside it. Embedded Redis CPU is not included in either.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parlour.bots import make_bot  # noqa: E402
from parlour.client import GameClient  # noqa: E402
from parlour.play import play_seat  # noqa: E402
from parlour.runner import run_bot  # noqa: E402
from parlour.v1 import tournament_service_pb2 as pb  # noqa: E402
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc  # noqa: E402
from service.bootstrap import build_app  # noqa: E402
from service.config import Settings  # noqa: E402

ADMIN = "bench-admin-key-0123456789"
BOT_KEY = "bench-bot-key-0123456789"
DEFAULT_SIZE = {"oldmen": 3, "verraeter": 3, "libertalia": 3}


# --- the bot process ----------------------------------------------------------------------------------


def _bots(target: str, names: list[str], games_each: int) -> int:
    async def main() -> int:
        runs = await asyncio.gather(
            *(
                run_bot(target, n, BOT_KEY, lambda g, n=n: make_bot("random", g, seed=n), max_games=games_each)
                for n in names
            )
        )
        return sum(r.moves for r in runs)

    return asyncio.run(main())


def _direct(target: str, game: str, size: int, count: int, parallel: int) -> None:
    async def one(client: GameClient, index: int) -> None:
        summary = await client.create_game(game, size, {}, f"direct-{index}".encode())
        seats = [await client.claim_seat(summary.game_id, f"bot{i}", seat=i) for i in range(size)]
        await asyncio.gather(
            *(play_seat(client, summary.game_id, s, t, make_bot("random", game, seed=index)) for s, t in seats)
        )

    async def main() -> None:
        gate = asyncio.Semaphore(parallel)
        async with GameClient(target) as client:

            async def guarded(index: int) -> None:
                async with gate:
                    await one(client, index)

            await asyncio.gather(*(guarded(i) for i in range(count)))

    asyncio.run(main())


# --- the server process (this one) --------------------------------------------------------------------


async def _tournament(
    target: str, game: str, names: list[str], size: int, rounds: int, *, pool: ProcessPoolExecutor
) -> tuple[int, float, float]:
    settings = pb.TournamentSettings(
        name="bench",
        game=game,
        table_size=size,
        format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        rounds=rounds,
        max_parallel_games=256,
    )
    admin = [("x-parlour-admin-key", ADMIN)]
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings), metadata=admin)
        tid = made.tournament.tournament_id
        for name in names:
            await stub.RegisterBot(pb.RegisterBotRequest(tournament_id=tid, bot_name=name, bot_key=BOT_KEY))
        games_each = math.comb(len(names) - 1, size - 1) * rounds
        loop = asyncio.get_running_loop()
        bots = loop.run_in_executor(pool, _bots, target, names, games_each)
        await asyncio.sleep(1.0)  # let the bots connect
        cpu, wall = time.process_time(), time.perf_counter()
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=admin)
        while True:
            reply = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tid))
            if reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED:
                break
            await asyncio.sleep(0.02)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        await bots
        return reply.tournament.games_finished, wall, cpu


async def _run_direct(
    target: str, game: str, size: int, count: int, parallel: int, *, pool: ProcessPoolExecutor
) -> tuple[float, float]:
    loop = asyncio.get_running_loop()
    cpu, wall = time.process_time(), time.perf_counter()
    await loop.run_in_executor(pool, _direct, target, game, size, count, parallel)
    return time.perf_counter() - wall, time.process_time() - cpu


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(
            grpc_host="127.0.0.1",
            grpc_port=0,
            http_host="127.0.0.1",
            http_port=0,
            data_dir=Path(data),
            log_level="warning",
            admin_key=ADMIN,
        )
        from service.logs import configure_logging

        configure_logging("warning", json=True)
        app = build_app(settings)
        await app.start()
        target = f"127.0.0.1:{app.grpc_port}"
        context = multiprocessing.get_context("spawn")
        print(
            f"{'game':<11} {'games':>5} {'games/min':>9} {'cpu ms/game':>11} {'direct g/min':>12} "
            f"{'direct cpu':>10} {'cpu overhead':>12} {'wall ratio':>10}"
        )
        try:
            with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
                pool.submit(int, 0).result()  # start the worker before timing anything
                for game in args.games.split(","):
                    size = args.table_size or DEFAULT_SIZE[game]
                    names = [f"{game}-bot-{i}-{time.time_ns() % 10**6}" for i in range(args.bots)]
                    count, wall, cpu = await _tournament(target, game, names, size, args.rounds, pool=pool)
                    parallel = math.comb(args.bots, size)
                    d_wall, d_cpu = await _run_direct(target, game, size, count, parallel, pool=pool)
                    overhead = (cpu / count) / (d_cpu / count) - 1
                    print(
                        f"{game:<11} {count:>5} {count / wall * 60:>9.0f} {cpu / count * 1000:>11.1f} "
                        f"{count / d_wall * 60:>12.0f} {d_cpu / count * 1000:>10.1f} {overhead:>+11.1%} "
                        f"{wall / d_wall:>10.2f}",
                        flush=True,
                    )
        finally:
            await app.stop(grace=0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=5)
    parser.add_argument("--table-size", type=int, default=0, help="seats per game (default: 3)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--games", default="oldmen,verraeter,libertalia")
    asyncio.run(main(parser.parse_args()))
