"""Tournament benchmark: does the tournament scheduler add at most 10% server CPU per game over playing the
same games directly? Games per minute and CPU per game, per game, tournament against direct play.

Usage: python bench/tournament.py [--bots N] [--table-size K] [--rounds R] [--games oldmen,verraeter,...]
       [--repeat M] [--poll-ms P] [--wait poll|watch] [--plain-api]

The server (build_app with an embedded Redis in a temporary directory) runs in this process; the bots run in
a second process (``parlour.runner.run_bot``: random bots, each on one BotService stream), so their CPU is
not the server's. Bot number i is seeded ``bot-i`` in every mode and every game is dealt from a known seed,
so the modes play the same games (events per game are printed to show it; they can differ a little where a
bot sees a turn again after another seat's simultaneous move). For each game:

a. tournament: a round robin of N bots in tables of K (C(N, K) games per round, R rounds, all games of a
   round at once: max_parallel_games is 256), created and started over TournamentService. Timed from
   StartTournament until the tournament is FINISHED: the bench waits for the bot process to end its games
   (no server work), then polls GetStandings every P ms until the status is FINISHED.
b. direct: the same games with no tournament, played by the same kind of bot process over the same
   BotService connection, under fresh bot names. The bench drives the application in-process: a round at a
   time, for each table of the round in plan order (itertools.combinations of the bots, rotated by the
   round, as service/app/tournaments/plan.py does) ``Games.create_game`` with the seed the tournament's
   game of that table used (read from its export), ``Games.claim_seat`` and ``Bots.assign`` for each seat;
   then it waits for the round's games to end: every P ms it looks at the oldest game of the round not yet
   seen finished with ``Games.get_game`` (about one call per poll; ``--wait poll``, the default), or it
   follows each game with ``Games.watch`` from the moment it is dealt, as the scheduler does (``--wait
   watch``). Timed from the first create_game until the last game of the last round has been seen finished.
c. plain game API (``--plain-api``; for comparison only, not what the target is measured against): the same
   deals played by the bot process with ``parlour.play.play_seat`` over GameService (CreateGame, ClaimSeat,
   then views and WatchGame streams per seat), a round at a time.

Measures, over each timed window: server CPU is ``time.process_time()`` of this process (every thread: the
gRPC server, the application, the scheduler, and the bench's own driving); Redis CPU is ``used_cpu_user +
used_cpu_sys`` from ``INFO cpu`` of the embedded Redis (its own process); driver CPU is the event loop
thread's CPU time (``time.thread_time``) spent in the steps of the tasks that drive the games, counted by a
task factory installed before the server starts (:class:`LoopMeter`): in (a) the scheduler's tasks
(``Tournaments.run``, ``Runner.run``, ``Runner._watch``: creating games, claiming and assigning seats,
reading and appending the tournament log, ratings, leases, watching games end), in (b) the bench's driver
(creating games, claiming and assigning seats, waiting for the ends). Not included: the bot process's CPU,
connecting the bots (they connect a second before the window), creating the tournament and registering its
bots, and reading the seeds. A full garbage collection runs before each window.

The verdict: the scheduler's overhead is (driver CPU per game in (a) - driver CPU per game in (b)) / server
CPU per game in (b), the median over the repetitions, against the target of +10%. It is measured where the
scheduler runs, so it does not drown in the noise of whole-process CPU, which on this kind of machine varies
by 20-40% between identical runs; that whole-process ratio (tournament / direct - 1) is printed beside it,
with the wall-clock ratio and the Redis CPU ratio (the scheduler's Redis calls show there, not in the
verdict). Each game gets one unmeasured warm-up (a, then b), then M repetitions in alternating order (a b,
b a, ...); (b) plays the deals of the latest tournament. Each column is the median over the repetitions.
"""

from __future__ import annotations

import argparse
import asyncio
import collections.abc
import gc
import itertools
import math
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parlour.bots import Bot, make_bot  # noqa: E402
from parlour.client import GameClient  # noqa: E402
from parlour.play import play_seat  # noqa: E402
from parlour.runner import run_bot  # noqa: E402
from parlour.v1 import game_pb2  # noqa: E402
from parlour.v1 import tournament_service_pb2 as pb  # noqa: E402
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc  # noqa: E402
from service.app.bots import Bots  # noqa: E402
from service.app.tournaments.service import Tournaments  # noqa: E402
from service.app.tournaments.state import TournamentState  # noqa: E402
from service.bootstrap import App, build_app  # noqa: E402
from service.config import Settings  # noqa: E402
from service.logs import configure_logging  # noqa: E402
from service.store.bots import AssignmentRecord  # noqa: E402

ADMIN = "bench-admin-key-0123456789"
ADMIN_METADATA = (("x-parlour-admin-key", ADMIN),)
BOT_KEY = "bench-bot-key-0123456789"
TARGET = 0.10  # the scheduler may add at most this share of server CPU per game
CONNECT_SECONDS = 1.0  # the bots connect before a timed window opens
RUN_LIMIT_SECONDS = 900  # a run that takes longer has stalled
MODES = ("tournament", "direct", "plain API")

T = TypeVar("T")


@dataclass(frozen=True)
class Deal:
    """One table: the index of the bot in each seat and the seed the game is dealt from."""

    seats: tuple[int, ...]
    seed: bytes


def round_robin(bots: int, size: int, rounds: int) -> list[list[tuple[int, ...]]]:
    """The seats (bot indices) of every table of every round, as plan.py plans a round robin without
    duplicate seeds: every group of ``size`` bots in registration order, rotated by (round - 1) % size."""
    groups = list(itertools.combinations(range(bots), size))
    return [[g[r % size :] + g[: r % size] for g in groups] for r in range(rounds)]


def bot_seed(index: int) -> str:
    """The random seed of bot number ``index``, the same in every mode."""
    return f"bot-{index}"


# --- the bot process ----------------------------------------------------------------------------------


def _maker(index: int) -> Callable[[str], Bot]:
    def make(game: str) -> Bot:
        return make_bot("random", game, seed=bot_seed(index))

    return make


def play_bots(target: str, names: list[str], games_each: int) -> None:
    """Bot process: run one random bot per name over BotService until each has ended ``games_each`` games."""

    async def main() -> None:
        await asyncio.gather(
            *(run_bot(target, name, BOT_KEY, _maker(i), max_games=games_each) for i, name in enumerate(names))
        )

    asyncio.run(main())


def play_plain(target: str, game: str, rounds: list[list[Deal]]) -> list[str]:
    """Bot process: play the deals over the plain game API, a round at a time; returns the game ids."""

    async def table(client: GameClient, deal: Deal) -> str:
        summary = await client.create_game(game, len(deal.seats), {}, deal.seed)
        claims = [await client.claim_seat(summary.game_id, bot_seed(b), seat=s) for s, b in enumerate(deal.seats)]
        bots = [make_bot("random", game, seed=bot_seed(b)) for b in deal.seats]
        await asyncio.gather(*(play_seat(client, summary.game_id, s, t, bots[s]) for s, t in claims))
        return summary.game_id

    async def main() -> list[str]:
        async with GameClient(target) as client:
            ids: list[str] = []
            for deals in rounds:
                ids += await asyncio.gather(*(table(client, deal) for deal in deals))
            return ids

    return asyncio.run(main())


# --- the server process (this one) --------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """What every run of one game plays, and how the bench waits."""

    game: str
    bots: int
    size: int
    rounds: int
    poll: float
    wait: str

    @property
    def games_each(self) -> int:
        """Games each bot plays in a run."""
        return math.comb(self.bots - 1, self.size - 1) * self.rounds


@dataclass(frozen=True)
class Window:
    """What a timed window cost: wall seconds, this process's CPU seconds, Redis's CPU seconds, and the
    event-loop CPU seconds of the code that drove the games (the scheduler's tasks in (a), the bench's
    driver in (b); see :class:`LoopMeter`)."""

    wall: float
    cpu: float
    redis: float
    driver: float = 0.0


@dataclass(frozen=True)
class Sample:
    """One run of one mode: its games, their events in total, and its window."""

    games: int
    events: int
    window: Window

    @property
    def per_minute(self) -> float:
        """Games per minute."""
        return self.games / self.window.wall * 60

    @property
    def cpu_ms(self) -> float:
        """Server CPU ms per game."""
        return self.window.cpu / self.games * 1000

    @property
    def redis_ms(self) -> float:
        """Redis CPU ms per game."""
        return self.window.redis / self.games * 1000

    @property
    def driver_ms(self) -> float:
        """CPU ms per game of the code that drove the games (scheduler or bench driver), in the event loop."""
        return self.window.driver / self.games * 1000

    @property
    def events_per_game(self) -> float:
        """Events per game (setup events included)."""
        return self.events / self.games


@dataclass
class Server:
    """The in-process server, the process the bots run in, and a counter for fresh bot names."""

    app: App
    pool: ProcessPoolExecutor
    runs: int = 0

    @property
    def target(self) -> str:
        """The server's gRPC address."""
        return f"127.0.0.1:{self.app.grpc_port}"

    @property
    def bots(self) -> Bots:
        """The bot use cases."""
        assert self.app.bots is not None
        return self.app.bots

    @property
    def tournaments(self) -> Tournaments:
        """The tournament use cases."""
        assert self.app.tournaments is not None
        return self.app.tournaments

    def fresh_names(self, setup: Setup, mode: str) -> list[str]:
        """Bot names no earlier run used (a bot's assignment stream is per name)."""
        self.runs += 1
        return [f"{setup.game}-{mode}{self.runs}-{i}" for i in range(setup.bots)]


async def redis_cpu(app: App) -> float:
    """Seconds of CPU the Redis server has used (user + system)."""
    info = await app.redis.client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def timed(app: App, work: Awaitable[T]) -> tuple[T, Window]:
    """Await ``work``; its result and what it cost."""
    gc.collect()
    driver = METER.seconds
    redis, cpu, wall = await redis_cpu(app), time.process_time(), time.perf_counter()
    try:
        result = await asyncio.wait_for(work, RUN_LIMIT_SECONDS)
    except TimeoutError:
        raise SystemExit(f"a run took over {RUN_LIMIT_SECONDS} s: the games did not end (see the server log)") from None
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    driver = METER.seconds - driver
    return result, Window(wall, cpu, await redis_cpu(app) - redis, driver)


async def sample(app: App, game_ids: Sequence[str], window: Window) -> Sample:
    """The sample of a run that played ``game_ids`` in ``window``."""
    events = sum([(await app.games.get_game(g)).version for g in game_ids])
    return Sample(len(game_ids), events, window)


async def start_bots(server: Server, names: list[str], games_each: int) -> asyncio.Future[None]:
    """Start the bots in the bot process and give them time to connect; the future ends with them."""
    bots = asyncio.get_running_loop().run_in_executor(server.pool, play_bots, server.target, names, games_each)
    await asyncio.sleep(CONNECT_SECONDS)
    return bots


# --- measuring the driving code in the event loop -----------------------------------------------------

#: Root coroutines of the tasks that drive games: the scheduler's in (a), the bench's own in (b).
DRIVERS = {"Tournaments.run", "Runner.run", "Runner._watch", "_play_direct", "_watch_to_end"}


class _MeteredCoroutine(collections.abc.Coroutine):  # type: ignore[type-arg]  # collections.abc.Coroutine's three type parameters mean nothing to this wrapper
    """A coroutine whose every step adds the event loop thread's CPU time to a :class:`LoopMeter`."""

    def __init__(self, coro: Coroutine[Any, Any, Any], meter: LoopMeter) -> None:
        self._coro = coro
        self._meter = meter
        self.__qualname__ = getattr(coro, "__qualname__", "")

    def send(self, value: Any) -> Any:
        start = time.thread_time()
        try:
            return self._coro.send(value)
        finally:
            self._meter.seconds += time.thread_time() - start

    def throw(self, *args: Any) -> Any:
        start = time.thread_time()
        try:
            return self._coro.throw(*args)
        finally:
            self._meter.seconds += time.thread_time() - start

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, None, Any]:
        return (yield from self._coro.__await__())  # only tasks drive it; kept for the Coroutine protocol


class LoopMeter:
    """Counts the CPU time spent in the steps of tasks whose root coroutine is one of :data:`DRIVERS`
    (everything such a task runs until it next waits: the application calls, the engine, the observers).
    Installed as the loop's task factory before the server starts, so the scheduler's tasks are counted."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        """Meter every task ``loop`` creates from now on whose root coroutine is a driver."""

        def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
            if getattr(coro, "__qualname__", "") in DRIVERS:
                coro = _MeteredCoroutine(coro, self)
            return asyncio.Task(coro, loop=loop, **kwargs)

        loop.set_task_factory(factory)


METER = LoopMeter()


# --- (a) tournament -----------------------------------------------------------------------------------


async def tournament_mode(server: Server, setup: Setup) -> tuple[Sample, list[list[Deal]]]:
    """Run a round robin tournament; its sample and its deals, by round."""
    names = server.fresh_names(setup, "t")
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        settings = pb.TournamentSettings(
            name="bench",
            game=setup.game,
            table_size=setup.size,
            format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            rounds=setup.rounds,
            max_parallel_games=256,
        )
        made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings), metadata=ADMIN_METADATA)
        tid = made.tournament.tournament_id
        for name in names:
            request = pb.RegisterBotRequest(tournament_id=tid, bot_name=name, bot_key=BOT_KEY)
            await stub.RegisterBot(request, metadata=ADMIN_METADATA)
        bots = await start_bots(server, names, setup.games_each)
        _, window = await timed(server.app, _run_tournament(stub, tid, bots, setup.poll))
    state = await server.tournaments.load(tid)
    tables = sorted(state.tables.values(), key=lambda t: (t.round, t.index))
    return await sample(server.app, [t.game_id for t in tables], window), await deals_of(server, state, names)


async def _run_tournament(
    stub: pb_grpc.TournamentServiceAsyncStub, tid: str, bots: asyncio.Future[None], poll: float
) -> None:
    await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=ADMIN_METADATA)
    await bots
    while True:
        reply = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tid))
        if reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED:
            return
        await asyncio.sleep(poll)


async def deals_of(server: Server, state: TournamentState, names: list[str]) -> list[list[Deal]]:
    """The tournament's tables by round, with each game's revealed seed; checked against ``round_robin``."""
    index = {name: i for i, name in enumerate(names)}
    rounds: list[list[Deal]] = [[] for _ in range(state.settings.rounds)]
    for table in sorted(state.tables.values(), key=lambda t: (t.round, t.index)):
        seed = (await server.app.replays.export(table.game_id)).seed
        rounds[table.round - 1].append(Deal(tuple(index[n] for n in table.seats), seed))
    planned = round_robin(len(names), state.settings.table_size, state.settings.rounds)
    if [[d.seats for d in deals] for deals in rounds] != planned:
        raise RuntimeError("the tournament's tables are not the bench's round robin; update round_robin()")
    return rounds


# --- (b) direct ---------------------------------------------------------------------------------------


async def direct_mode(server: Server, setup: Setup, rounds: list[list[Deal]]) -> Sample:
    """Play the deals with bots over BotService and no tournament; the run's sample."""
    names = server.fresh_names(setup, "d")
    bots = await start_bots(server, names, setup.games_each)
    game_ids, window = await timed(server.app, _play_direct(server, setup, names, rounds))
    await bots
    return await sample(server.app, game_ids, window)


async def _play_direct(server: Server, setup: Setup, names: list[str], rounds: list[list[Deal]]) -> list[str]:
    game_ids: list[str] = []
    for deals in rounds:
        game_ids += await _play_round(server, setup, names, deals)
    return game_ids


async def _play_round(server: Server, setup: Setup, names: list[str], deals: list[Deal]) -> list[str]:
    game_ids: list[str] = []
    watchers: list[asyncio.Task[None]] = []
    for deal in deals:
        game_ids.append(await _deal(server, setup.game, names, deal))
        if setup.wait == "watch":
            watchers.append(asyncio.create_task(_watch_to_end(server.app, game_ids[-1])))
    if watchers:
        await asyncio.gather(*watchers)
    else:
        await _poll_to_end(server.app, game_ids, setup.poll)
    return game_ids


async def _deal(server: Server, game: str, names: list[str], deal: Deal) -> str:
    """Create the table's game, claim its seats and give them to the bots; the game id."""
    games = server.app.games
    game_id = (await games.create_game(game, len(deal.seats), {}, deal.seed)).game_id
    for seat, bot in enumerate(deal.seats):
        _, token = await games.claim_seat(game_id, seat, names[bot])
        if not await server.bots.assign(names[bot], AssignmentRecord(game_id, game, seat, token)):
            raise RuntimeError(f"bot {names[bot]} already had seat {seat} of game {game_id}")
    return game_id


async def _watch_to_end(app: App, game_id: str) -> None:
    start = (await app.games.get_game(game_id)).version + 1
    async for _ in app.games.watch(game_id, start, None, None):
        pass


async def _poll_to_end(app: App, game_ids: list[str], poll: float) -> None:
    """Every ``poll`` seconds, look at the oldest game not seen finished (and on past it while finished):
    about one ``get_game`` per poll, like the tournament mode's one GetStandings per poll."""
    pending = list(game_ids)
    while pending:
        await asyncio.sleep(poll)
        while pending and (await app.games.get_game(pending[0])).status == game_pb2.GAME_STATUS_FINISHED:
            pending.pop(0)


# --- (c) plain game API -------------------------------------------------------------------------------


async def plain_mode(server: Server, setup: Setup, rounds: list[list[Deal]]) -> Sample:
    """Play the deals with ``play_seat`` over GameService, from the bot process; the run's sample."""
    work = asyncio.get_running_loop().run_in_executor(server.pool, play_plain, server.target, setup.game, rounds)
    game_ids, window = await timed(server.app, work)
    return await sample(server.app, game_ids, window)


# --- runs and report ----------------------------------------------------------------------------------


async def bench_game(server: Server, setup: Setup, repeat: int, plain: bool) -> dict[str, list[Sample]]:
    """Warm up, then ``repeat`` runs of each mode, (a) and (b) in alternating order; samples by mode."""
    _, deals = await tournament_mode(server, setup)
    await direct_mode(server, setup, deals)
    samples: dict[str, list[Sample]] = {mode: [] for mode in MODES}
    for run in range(repeat):
        for mode in MODES[:2] if run % 2 == 0 else MODES[1::-1]:
            if mode == "tournament":
                measured, deals = await tournament_mode(server, setup)
            else:
                measured = await direct_mode(server, setup, deals)
            samples[mode].append(measured)
        if plain:
            samples["plain API"].append(await plain_mode(server, setup, deals))
    return samples


def _median(samples: list[Sample], measure: Callable[[Sample], float]) -> float:
    return statistics.median(measure(s) for s in samples)


def _ratios(a: list[Sample], b: list[Sample], measure: Callable[[Sample], float]) -> list[float]:
    """measure(a) / measure(b) - 1 for each repetition (its two runs were next to each other in time)."""
    return [measure(x) / measure(y) - 1 for x, y in zip(a, b, strict=True)]


def report(game: str, samples: dict[str, list[Sample]]) -> bool:
    """Print one game's rows and verdict; True if the scheduler's CPU overhead meets the target."""
    for mode, runs in samples.items():
        if runs:
            print(
                f"{game:<11} {mode:<10} {runs[0].games:>5} {_median(runs, lambda s: s.events_per_game):>7.1f} "
                f"{_median(runs, lambda s: s.per_minute):>9.0f} {_median(runs, lambda s: s.cpu_ms):>11.1f} "
                f"{_median(runs, lambda s: s.redis_ms):>13.1f} {_median(runs, lambda s: s.driver_ms):>14.1f}"
            )
    a, b = samples["tournament"], samples["direct"]
    extra = [(x.driver_ms - y.driver_ms) / y.cpu_ms for x, y in zip(a, b, strict=True)]
    measured = statistics.median(extra)
    each = _ratios(a, b, lambda s: s.cpu_ms)
    wall = statistics.median(_ratios(a, b, lambda s: s.window.wall)) + 1
    redis = statistics.median(_ratios(a, b, lambda s: s.redis_ms))
    met = measured <= TARGET
    print(
        f"{game:<11} scheduler overhead, measured in the event loop: {measured:+.1%} of direct play's CPU per game "
        f"(runs: {', '.join(f'{r:+.1%}' for r in extra)}): {'PASS' if met else 'FAIL'} (target <= +{TARGET:.0%})\n"
        f"{'':<11} whole-process CPU per game, tournament / direct - 1: {statistics.median(each):+.1%} "
        f"(runs: {', '.join(f'{r:+.1%}' for r in each)}); wall ratio {wall:.2f}; Redis CPU {redis:+.1%}",
        flush=True,
    )
    return met


def bench_settings(data: str, **more: Any) -> Settings:
    """A bench server's settings: free ports, an embedded Redis in ``data``, the admin key ADMIN, and no
    per-client quotas (the load comes from one address: the quotas would measure themselves); ``more``
    sets other fields."""
    return Settings(
        grpc_host="127.0.0.1",
        grpc_port=0,
        http_host="127.0.0.1",
        http_port=0,
        data_dir=Path(data),
        log_level="warning",
        admin_key=ADMIN,
        rate_create_games="0",
        rate_claim_seats="0",
        rate_joins="0",
        rate_calls="0",
        max_streams_per_client=0,
        **more,
    )


async def main(args: argparse.Namespace) -> int:
    """Serve, run every game's benchmark, print the table; exit status 0 even on a FAIL (it is a report)."""
    configure_logging("warning", json=True)
    games = args.games.split(",")
    with tempfile.TemporaryDirectory() as data:
        settings = bench_settings(data)
        METER.install(asyncio.get_running_loop())
        app = build_app(settings)
        await app.start()
        print(
            f"{args.bots} random bots, tables of {args.table_size}, {args.rounds} rounds, median of {args.repeat} "
            f"runs per mode, direct mode waits by {args.wait} ({args.poll_ms:g} ms polls)"
        )
        print(
            f"{'game':<11} {'mode':<10} {'games':>5} {'ev/game':>7} {'games/min':>9} {'cpu ms/game':>11} "
            f"{'redis ms/game':>13} {'driver ms/game':>14}"
        )
        met = 0
        try:
            with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
                pool.submit(int, 0).result()  # start the worker before timing anything
                server = Server(app, pool)
                for game in games:
                    setup = Setup(game, args.bots, args.table_size, args.rounds, args.poll_ms / 1000, args.wait)
                    met += report(game, await bench_game(server, setup, args.repeat, args.plain_api))
        finally:
            await app.stop(grace=0)
    print(f"Target: tournament CPU per game at most +{TARGET:.0%} over direct play: met for {met}/{len(games)} games.")
    return 0


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bots", type=int, default=5, help="bots in the round robin (default 5)")
    parser.add_argument("--table-size", type=int, default=3, help="seats per game (default 3)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (default 2)")
    parser.add_argument("--games", default="oldmen,verraeter,libertalia", help="games to measure, comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="measured runs per mode (default 5); medians")
    parser.add_argument("--poll-ms", type=float, default=20, help="poll interval of the bench (default 20)")
    parser.add_argument("--wait", choices=("poll", "watch"), default="poll", help="how (b) waits for a game's end")
    parser.add_argument("--plain-api", action="store_true", help="also run (c), the plain game API")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.bots < args.table_size:
        parser.error("--repeat must be at least 1 and --bots at least --table-size")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
