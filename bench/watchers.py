"""Live fan-out benchmark: many watchers on one game while its commands flow at a steady rate.

Usage: python bench/watchers.py [--watchers 100,1000,2000] [--rate 20] [--seconds S] [--channels C] [--per-event]
       [--json]

The real server (service.bootstrap.build_app, embedded Redis) runs in this process, on the event loop
``parlour serve`` runs on (service.event_loop: asyncio's by default; ``PARLOUR_EVENT_LOOP=uvloop`` for uvloop).
A second process opens the watchers (WatchGame streams as spectators, spread over ``--channels`` gRPC
channels, each asking for one reply per command, ``by_command``, unless ``--per-event``) on one game of
Old Men of the Forest (a two-deal match, 4 seats); once every stream is open, a third process plays it
with one driver at ``--rate`` SubmitCommand per second (each move decided on a local mirror of the game
from its known seed, so no view is fetched). The driver has a process of its own
so that the watchers' client work (decoding thousands of messages a second) does not slow the driver down:
the command rate measured is the server's. For each watcher count it reports:

- the command rate the driver reached (target: the asked rate, with no fall as watchers are added);
- the round trip of each SubmitCommand (p50 / p99), which is what limits the driver's rate;
- the delay from a command's acknowledgement (its SubmitCommand reply reaching the driver) to each
  watcher's receipt of its events, p50 / p99 / max over every (event, watcher) pair in the window (0 when
  a watcher was faster than the reply); target p99 under 50 ms at 1,000 watchers;
- the share of (event, watcher) pairs delivered by a second after the last command, and how many streams
  ended with an error;
- the server process's CPU per delivery (µs per event per watcher) and per command, from the first command
  to a second after the last (opening the streams is not counted).

Both ends of a delay are read from ``time.perf_counter`` (the system's monotonic clock, the same in every
process). The watchers' process CPU share is shown, because on a 2-core machine a saturated client also
delays what it measures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from engines.contract import advance, fold
from engines.envelope import wrap_command
from engines.oldmen import OLDMEN
from parlour.v1 import game_service_pb2, game_service_pb2_grpc
from service import event_loop
from service.bootstrap import build_app
from service.config import Settings
from service.logs import configure_logging

GAME = OLDMEN
SEATS = 4
OPTIONS = {"match_deals": "2"}
TARGET_P99_MS_AT_1000 = 50.0


@dataclass
class Seated:
    """The benchmark's game: id, seed, seat tokens, the version it was created at."""

    game_id: str
    seed: bytes
    tokens: list[str]
    version: int


@dataclass
class Run:
    """What one load run measured."""

    watchers: int
    commands: int = 0
    seconds: float = 0.0
    delays_ms: list[float] = field(default_factory=list)
    round_trips_ms: list[float] = field(default_factory=list)
    deliveries: int = 0
    expected: int = 0
    failed: int = 0
    client_cpu_s: float = 0.0


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


# --- the load processes -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Load:
    """One load run: the server, the game, how many watchers over how many channels, the command rate and
    how long to play."""

    target: str
    game: Seated
    watchers: int
    channels: int
    rate: float
    seconds: float
    #: Ask for one reply per command (WatchGameRequest.by_command), as the SDK and the web page do.
    by_command: bool = True


@dataclass
class Watched:
    """What the watchers' process saw: (version, receipt time) of every live event, streams that ended
    with an error, and its CPU time over the run."""

    received: list[tuple[int, float]] = field(default_factory=list)
    failed: int = 0
    cpu_s: float = 0.0


@dataclass
class Driven:
    """What the driver saw: each version's acknowledgement time and the window it played in."""

    acked: dict[int, float] = field(default_factory=dict)
    round_trips_ms: list[float] = field(default_factory=list)
    commands: int = 0
    started: float = 0.0
    ended: float = 0.0


def watch_process(load: Load, ready: Any, stop: Any, results: Any) -> None:
    """Child process: hold the watchers until ``stop`` is set; ``ready`` once every stream is open."""
    results.put(event_loop.run(_watchers(load, ready, stop)))


def drive_process(load: Load, ready: Any, results: Any) -> None:
    """Child process: once ``ready``, play the game at the asked rate."""
    ready.wait()
    results.put(event_loop.run(_driver(load)))


async def _watchers(load: Load, ready: Any, stop: Any) -> Watched:
    watched = Watched()
    opened = [grpc.aio.insecure_channel(load.target) for _ in range(load.channels)]
    gate = asyncio.Semaphore(0)
    try:
        streams = [
            asyncio.ensure_future(_watch(opened[i % load.channels], load.game, gate, watched, load.by_command))
            for i in range(load.watchers)
        ]
        for _ in range(load.watchers):
            await gate.acquire()
        ready.set()
        cpu = time.process_time()
        await asyncio.get_running_loop().run_in_executor(None, stop.wait)
        watched.cpu_s = time.process_time() - cpu
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
    finally:
        for channel in opened:
            await channel.close()
    return watched


async def _watch(
    channel: grpc.aio.Channel, game: Seated, ready: asyncio.Semaphore, watched: Watched, by_command: bool
) -> None:
    """Watch from the game's last stored version (its arrival says the stream is open), then record
    (version, receipt time) of every later event (``by_command``: one reply per command)."""
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    request = game_service_pb2.WatchGameRequest(game_id=game.game_id, from_version=game.version, by_command=by_command)
    stream = stub.WatchGame(request)
    opened = False
    try:
        async for reply in stream:
            for event in reply.events if by_command else [reply.event]:
                if event.version == game.version:
                    opened = True
                    ready.release()
                else:
                    watched.received.append((event.version, time.perf_counter()))
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            watched.failed += 1
    finally:
        if not opened:  # refused or broken before it opened: do not keep the driver waiting for it
            ready.release()


async def _driver(load: Load) -> Driven:
    """Play the game at ``rate`` commands/s for ``seconds`` (or to its end); record each version's ack time."""
    game, driven = load.game, Driven()
    async with grpc.aio.insecure_channel(load.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        config = GAME.spec.config(SEATS, OPTIONS)
        state = fold(GAME, GAME.start(config, game.seed))
        version, rng = game.version, random.Random(7)
        driven.started = start = time.perf_counter()
        while time.perf_counter() - start < load.seconds and state is not None and not GAME.is_over(state):
            await asyncio.sleep(max(0.0, start + driven.commands / load.rate - time.perf_counter()))
            seat = rng.choice(sorted(GAME.pending(state)))
            command = rng.choice(GAME.legal_commands(state, seat))
            request = game_service_pb2.SubmitCommandRequest(
                game_id=game.game_id,
                seat=seat,
                command=wrap_command(GAME, command),
                command_id=uuid.uuid4().hex,
                expected_version=version,
            )
            metadata = (("authorization", f"Bearer {game.tokens[seat]}"),)
            sent = time.perf_counter()
            reply = await stub.SubmitCommand(request, metadata=metadata)
            now = time.perf_counter()
            driven.round_trips_ms.append((now - sent) * 1000)
            for acked_version in range(version + 1, reply.version + 1):
                driven.acked[acked_version] = now
            _, state = advance(GAME, state, seat, command)
            version, driven.commands = reply.version, driven.commands + 1
        driven.ended = time.perf_counter()
    return driven


# --- the server process -----------------------------------------------------------------------------------------


async def _seated_game(app: Any, seed: bytes) -> Seated:
    summary = await app.games.create_game(GAME.spec.name, SEATS, OPTIONS, seed)
    tokens = [(await app.games.claim_seat(summary.game_id, seat, f"bench-{seat}"))[1] for seat in range(SEATS)]
    return Seated(summary.game_id, seed, tokens, summary.version)


class CpuSamples:
    """This process's CPU time, sampled every 20 ms, so the CPU of a window another process measured can be
    read off afterwards (the clocks agree: perf_counter is the system's monotonic clock)."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []

    async def run(self) -> None:
        """Sample until cancelled."""
        while True:
            self.samples.append((time.perf_counter(), time.process_time()))
            await asyncio.sleep(0.02)

    def between(self, start: float, end: float) -> float:
        """CPU seconds used from ``start`` to ``end`` (perf_counter times), to the nearest samples."""
        inside = [cpu for at, cpu in self.samples if start <= at <= end]
        return inside[-1] - inside[0] if len(inside) > 1 else 0.0


async def _one_run(app: Any, load: Load, samples: CpuSamples) -> tuple[Run, float]:
    context = multiprocessing.get_context("spawn")
    ready, stop, results = context.Event(), context.Event(), context.Queue()
    watchers = context.Process(target=watch_process, args=(load, ready, stop, results))
    driver = context.Process(target=drive_process, args=(load, ready, results))
    watchers.start()
    driver.start()
    loop = asyncio.get_running_loop()
    first = await loop.run_in_executor(None, results.get)
    if isinstance(first, Watched):  # the watchers failed before the driver ran
        raise RuntimeError("the watchers' process ended before the run")
    driven: Driven = first
    await asyncio.sleep(1.0)  # let the last deliveries arrive
    drained = time.perf_counter()
    stop.set()
    watched: Watched = await loop.run_in_executor(None, results.get)
    await loop.run_in_executor(None, watchers.join)
    await loop.run_in_executor(None, driver.join)
    run = Run(load.watchers, commands=driven.commands, seconds=driven.ended - driven.started)
    run.deliveries = len(watched.received)
    run.delays_ms = [max(0.0, (at - driven.acked[v]) * 1000) for v, at in watched.received if v in driven.acked]
    run.client_cpu_s = watched.cpu_s
    run.round_trips_ms = driven.round_trips_ms
    run.failed = watched.failed
    run.expected = load.watchers * len(driven.acked)
    return run, samples.between(driven.started, drained)


async def measure(args: argparse.Namespace, data_dir: Path) -> list[tuple[Run, float]]:
    """One run per watcher count; each with the server CPU it cost (from the first command to a second
    after the last)."""
    settings = Settings(
        grpc_host="127.0.0.1",
        grpc_port=0,
        http_host="127.0.0.1",
        http_port=0,
        data_dir=data_dir,
        log_level="warning",
        # One load process holds every watcher: no per-client quotas.
        rate_calls="",
        max_streams_per_client=0,
        max_streams=0,
    )
    configure_logging("warning")
    app = build_app(settings)
    await app.start()
    samples = CpuSamples()
    sampler = asyncio.ensure_future(samples.run())
    results: list[tuple[Run, float]] = []
    try:
        for count in args.watchers:
            game = await _seated_game(app, f"watchers-{count}-{uuid.uuid4().hex}".encode())
            load = Load(
                f"127.0.0.1:{app.grpc_port}", game, count, args.channels, args.rate, args.seconds, not args.per_event
            )
            results.append(await _one_run(app, load, samples))
    finally:
        sampler.cancel()
        await app.stop(grace=0)
    return results


def report(results: list[tuple[Run, float]], rate: float, as_json: bool) -> None:
    """The table (and the JSON line)."""
    print(
        f"Live fan-out: one game, commands at {rate:.0f}/s, spectators over gRPC (watchers, driver: own processes), "
        f"{event_loop.loop_name()} event loop\n"
    )
    print(
        "| watchers | commands/s | command p50 / p99 ms | delivered | delay p50 ms | p99 ms | max ms "
        "| server CPU µs per delivery | per command | watchers' process CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    summary: dict[str, float] = {}
    for run, server_cpu in results:
        per_s = run.commands / run.seconds if run.seconds else 0.0
        p99 = percentile(run.delays_ms, 0.99)
        per_delivery = server_cpu / run.deliveries * 1e6 if run.deliveries else 0.0
        per_command = server_cpu / run.commands * 1e6 if run.commands else 0.0
        delivered = run.deliveries / run.expected if run.expected else 0.0
        client = run.client_cpu_s / max(run.seconds + 1.0, 1e-9)
        failed = f" ({run.failed} streams failed)" if run.failed else ""
        print(
            f"| {run.watchers} | {per_s:.1f} | {percentile(run.round_trips_ms, 0.5):.1f} / "
            f"{percentile(run.round_trips_ms, 0.99):.1f} | {delivered:.1%}{failed} | "
            f"{percentile(run.delays_ms, 0.5):.1f} | {p99:.1f} | {max(run.delays_ms, default=0):.1f} | "
            f"{per_delivery:.1f} | {per_command:.0f} | {client:.0%} |"
        )
        summary[f"rate_{run.watchers}"] = round(per_s, 2)
        summary[f"p99_ms_{run.watchers}"] = round(p99, 2)
        summary[f"delivered_{run.watchers}"] = round(delivered, 4)
        summary[f"failed_{run.watchers}"] = run.failed
        summary[f"cpu_us_per_delivery_{run.watchers}"] = round(per_delivery, 2)
        summary[f"client_cpu_{run.watchers}"] = round(client, 2)
    print(
        f"\nTargets: p99 under {TARGET_P99_MS_AT_1000:.0f} ms at 1,000 watchers; the command rate does not fall as "
        "watchers are added. 'delivered': the share of (event, watcher) pairs that arrived by a second after the "
        "last command. The watchers' process CPU is a share of one core."
    )
    if as_json:
        print(json.dumps(summary, sort_keys=True))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description="Parlour live fan-out benchmark (see the module docstring).")
    parser.add_argument("--watchers", default="100,1000,2000", help="watcher counts, comma-separated")
    parser.add_argument("--rate", type=float, default=20.0, help="commands per second (default 20)")
    parser.add_argument("--seconds", type=float, default=6.0, help="how long each run plays (default 6)")
    parser.add_argument("--channels", type=int, default=8, help="gRPC channels the watchers share (default 8)")
    parser.add_argument(
        "--per-event", action="store_true", help="one reply per event (the default: one per command, by_command)"
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args(argv)
    args.watchers = [int(n) for n in args.watchers.split(",") if n.strip()]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark in a temporary data directory."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="parlour-watchers-") as data_dir:
        results = event_loop.run(measure(args, Path(data_dir)))
    report(results, args.rate, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
