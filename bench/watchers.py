"""Live fan-out benchmark: many watchers on one game while its commands flow at a steady rate.

Usage: python bench/watchers.py [--watchers 100,1000,2000] [--rate 20] [--seconds S] [--channels C] [--json]

The real server (service.bootstrap.build_app, embedded Redis) runs in this process. A second process opens
the watchers (WatchGame streams as spectators, spread over ``--channels`` gRPC channels) on one game of
Old Men of the Forest (a two-deal match, 4 seats) and, once every stream is open, plays it with one driver
at ``--rate`` SubmitCommand per second (each move decided on a local mirror of the game from its known
seed, so no view is fetched). For each watcher count it reports:

- the command rate the driver reached (target: the asked rate, with no fall as watchers are added);
- the delay from a command's acknowledgement (its SubmitCommand reply reaching the driver) to each
  watcher's receipt of its events, p50 / p99 / max over every (event, watcher) pair in the window (0 when
  a watcher was faster than the reply); target p99 under 50 ms at 1,000 watchers;
- the server process's CPU per delivery (µs per event per watcher) and per command.

Watchers and driver share the load process (one clock for both ends of the delay); its CPU share is shown,
because on a 2-core machine a saturated load process also delays what it measures.
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
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from engines.contract import advance, fold
from engines.envelope import wrap_command
from engines.oldmen import OLDMEN
from parlour.v1 import game_service_pb2, game_service_pb2_grpc
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
    deliveries: int = 0
    client_cpu_s: float = 0.0


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


# --- the load process ------------------------------------------------------------------------------------------


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


def run_load(load: Load) -> Run:
    """Child-process entry point."""
    return asyncio.run(_load(load))


async def _load(load: Load) -> Run:
    target, game, watchers, channels = load.target, load.game, load.watchers, load.channels
    rate, seconds = load.rate, load.seconds
    run = Run(watchers)
    opened = [grpc.aio.insecure_channel(target) for _ in range(channels)]
    acked: dict[int, float] = {}
    received: list[tuple[int, float]] = []
    ready = asyncio.Semaphore(0)
    try:
        streams = [
            asyncio.ensure_future(_watch(opened[i % channels], game.game_id, game.version, ready, received))
            for i in range(watchers)
        ]
        for _ in range(watchers):
            await ready.acquire()
        cpu = time.process_time()
        started = time.perf_counter()
        run.commands = await _drive(opened[0], game, rate, seconds, acked)
        run.seconds = time.perf_counter() - started
        await asyncio.sleep(1.0)  # let the last deliveries arrive
        run.client_cpu_s = time.process_time() - cpu
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
    finally:
        for channel in opened:
            await channel.close()
    run.deliveries = len(received)
    run.delays_ms = [max(0.0, (at - acked[version]) * 1000) for version, at in received if version in acked]
    return run


async def _watch(
    channel: grpc.aio.Channel, game_id: str, after: int, ready: asyncio.Semaphore, received: list[tuple[int, float]]
) -> None:
    """Watch from version ``after`` (the last one stored: its arrival says the stream is open), then record
    (version, receipt time) of every later event."""
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    stream = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id, from_version=after))
    opened = False
    try:
        async for reply in stream:
            if reply.event.version == after:
                opened = True
                ready.release()
            else:
                received.append((reply.event.version, time.perf_counter()))
    finally:
        if not opened:  # refused or broken before it opened: do not keep the driver waiting for it
            ready.release()


async def _drive(channel: grpc.aio.Channel, game: Seated, rate: float, seconds: float, acked: dict[int, float]) -> int:
    """Play the game at ``rate`` commands/s for ``seconds`` (or to its end); record each version's ack time."""
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    config = GAME.spec.config(SEATS, OPTIONS)
    state = fold(GAME, GAME.start(config, game.seed))
    version, rng, commands = game.version, random.Random(7), 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds and state is not None and not GAME.is_over(state):
        await asyncio.sleep(max(0.0, start + commands / rate - time.perf_counter()))
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
        reply = await stub.SubmitCommand(request, metadata=metadata)
        now = time.perf_counter()
        for acked_version in range(version + 1, reply.version + 1):
            acked[acked_version] = now
        _, state = advance(GAME, state, seat, command)
        version, commands = reply.version, commands + 1
    return commands


# --- the server process -----------------------------------------------------------------------------------------


async def _seated_game(app: Any, seed: bytes) -> Seated:
    summary = await app.games.create_game(GAME.spec.name, SEATS, OPTIONS, seed)
    tokens = [(await app.games.claim_seat(summary.game_id, seat, f"bench-{seat}"))[1] for seat in range(SEATS)]
    return Seated(summary.game_id, seed, tokens, summary.version)


async def measure(args: argparse.Namespace, data_dir: Path) -> list[tuple[Run, float]]:
    """One run per watcher count; each with the server CPU it cost."""
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
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    results: list[tuple[Run, float]] = []
    try:
        loop = asyncio.get_running_loop()
        for count in args.watchers:
            game = await _seated_game(app, f"watchers-{count}-{uuid.uuid4().hex}".encode())
            cpu = time.process_time()
            load = Load(f"127.0.0.1:{app.grpc_port}", game, count, args.channels, args.rate, args.seconds)
            run = await loop.run_in_executor(pool, run_load, load)
            results.append((run, time.process_time() - cpu))
    finally:
        pool.shutdown()
        await app.stop(grace=0)
    return results


def report(results: list[tuple[Run, float]], rate: float, as_json: bool) -> None:
    """The table (and the JSON line)."""
    print(f"Live fan-out: one game, commands at {rate:.0f}/s, spectators over gRPC (load from a second process)\n")
    print("| watchers | commands/s | delay p50 ms | p99 ms | max ms | server CPU µs per delivery | per command |")
    print("|---|---|---|---|---|---|---|")
    summary: dict[str, float] = {}
    for run, server_cpu in results:
        per_s = run.commands / run.seconds if run.seconds else 0.0
        p99 = percentile(run.delays_ms, 0.99)
        per_delivery = server_cpu / run.deliveries * 1e6 if run.deliveries else 0.0
        per_command = server_cpu / run.commands * 1e6 if run.commands else 0.0
        print(
            f"| {run.watchers} | {per_s:.1f} | {percentile(run.delays_ms, 0.5):.1f} | {p99:.1f} | "
            f"{max(run.delays_ms, default=0):.1f} | {per_delivery:.1f} | {per_command:.0f} |"
        )
        summary[f"rate_{run.watchers}"] = round(per_s, 2)
        summary[f"p99_ms_{run.watchers}"] = round(p99, 2)
        summary[f"cpu_us_per_delivery_{run.watchers}"] = round(per_delivery, 2)
        summary[f"client_cpu_{run.watchers}"] = round(run.client_cpu_s / max(run.seconds, 1e-9), 2)
    print(
        f"\nTargets: p99 under {TARGET_P99_MS_AT_1000:.0f} ms at 1,000 watchers; the command rate does not fall as "
        "watchers are added. Load process CPU (share of one core): "
        + ", ".join(f"{run.watchers}: {run.client_cpu_s / max(run.seconds, 1e-9):.0%}" for run, _ in results)
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
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args(argv)
    args.watchers = [int(n) for n in args.watchers.split(",") if n.strip()]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark in a temporary data directory."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="parlour-watchers-") as data_dir:
        results = asyncio.run(measure(args, Path(data_dir)))
    report(results, args.rate, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
