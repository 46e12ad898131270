"""``parlour serve --workers N``: a parent process that supervises N server processes sharing its ports.

The parent does not serve. It checks each port and holds it for the workers
(:func:`service.api.ports.reserve`: a port another program holds is refused in one sentence naming the port
and its flag; port 0 becomes one free port that every worker shares), starts the embedded Redis itself when
no Redis is named (and starts it again on the same data if it dies), and starts N workers
(:mod:`service.worker`): fresh interpreters, each building the normal app (``build_app``) with
``SO_REUSEPORT`` on its listeners, so that the kernel spreads new connections over them. Each worker is a
full replica: the games' logs, the clocks' deadlines and the tournaments' leases are in Redis, so any worker
serves any game, the watchers of one game may be on several workers, and a deadline or a tournament is run by
one worker at a time, as with replicas on several machines.

Once every worker is ready the parent prints the start lines. A worker that exits while the server runs is
started again: at once after a healthy run, after a pause that doubles (0.5 s up to 30 s) while it keeps
dying within seconds. SIGTERM or SIGINT stops the workers (each stops as a single server does, calls in
flight having :data:`STOP_GRACE_S`), kills any that has not exited after :data:`STOP_TIMEOUT_S`, then stops
the embedded Redis (in a process group of its own, so a Ctrl-C in a terminal reaches the parent, which
stops it last). A worker whose parent dies exits at once (Linux's parent-death signal; elsewhere at the end
of its standard input, a pipe only the parent holds).

Metrics: the workers run prometheus-client's multiprocess mode in a directory the parent makes, and removes
when it stops; a dead worker's live gauges are dropped with ``mark_process_dead`` (see
:mod:`service.metrics`).

What each worker counts on its own, as separate servers do: the quotas (``--rate-*`` per client, and
``--max-streams``, ``--max-streams-per-client``), so a client whose connections reach several workers may
get up to N times its quota; and the caches of game states.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import math
import os
import pickle
import shutil
import signal
import struct
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import structlog

from service.api.ports import Reservation, reserve, unavailable
from service.config import Settings
from service.store.embedded import RedisProcess

__all__ = [
    "FIRST_BACKOFF_S",
    "HEALTHY_S",
    "MAX_BACKOFF_S",
    "STOP_GRACE_S",
    "STOP_TIMEOUT_S",
    "WORKER_COMMAND",
    "WorkerStartError",
    "backoff_seconds",
    "default_workers",
    "encode_settings",
    "supervise",
]

log = structlog.get_logger("parlour.workers")

#: What a stopping worker gives the calls in flight (as a single ``parlour serve`` does).
STOP_GRACE_S = 2.0
#: How long the parent waits for its workers to stop before it kills them (less than the 10 s a container
#: runtime waits after SIGTERM before it kills the parent).
STOP_TIMEOUT_S = 8.0
#: A worker that served this long before it exited is started again at once.
HEALTHY_S = 5.0
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 30.0
#: How long a new worker may take to say it serves (imports, Redis, both listeners).
READY_TIMEOUT_S = 120.0
#: How long a worker that closed its output without saying it serves is given to exit by itself.
EXIT_WAIT_S = 5.0
#: How often the parent looks whether the embedded Redis still runs.
_REDIS_LOOK_S = 0.5
#: The line a worker writes on its standard output once it serves.
READY_LINE = b"ready\n"
#: The command that runs a worker; the parent's pid and the worker's slot follow it.
WORKER_COMMAND: tuple[str, ...] = (sys.executable, "-m", "service.worker")

#: The start lines: (settings, gRPC port, HTTP port, what the Redis is) -> printed.
Announce = Callable[[Settings, int, int, str], None]


class WorkerStartError(Exception):
    """A worker exited, or did not say it served, while the server started; the message says which."""


def default_workers() -> int:
    """One worker per core this process may run on: its CPU affinity (or the machine's cores where there is
    none), fewer under a cgroup v2 CPU quota (a container's ``--cpus``), at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_cpus()
    return max(1, min(cores, quota) if quota else cores)


def _cgroup_cpus() -> int | None:
    """The CPUs a cgroup v2 quota allows (``cpu.max``), rounded up; None when there is none."""
    try:
        fields = Path("/sys/fs/cgroup/cpu.max").read_text(encoding="ascii").split()
    except OSError:
        return None
    if len(fields) != 2 or not fields[0].isdigit() or not fields[1].isdigit() or int(fields[1]) == 0:
        return None  # "max": no quota
    return max(1, math.ceil(int(fields[0]) / int(fields[1])))


def backoff_seconds(quick_failures: int) -> float:
    """The pause before a worker is started again after ``quick_failures`` failures in a row (exits within
    :data:`HEALTHY_S` of serving, or starts that failed): none after a healthy run, then 0.5 s, doubling up
    to 30 s."""
    if quick_failures <= 0:
        return 0.0
    return float(min(MAX_BACKOFF_S, FIRST_BACKOFF_S * 2 ** min(quick_failures - 1, 16)))


def encode_settings(settings: Settings) -> bytes:
    """``settings`` as a worker reads them from its standard input: a length, then the pickle (between a
    parent and the children it starts from its own code, nothing else writes there)."""
    body = pickle.dumps(settings, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack(">Q", len(body)) + body


def supervise(settings: Settings, count: int, announce: Announce) -> None:
    """Serve with ``count`` workers until SIGTERM or SIGINT. Raises PortUnavailableError for a port that
    cannot be used and WorkerStartError when a worker cannot start, after stopping what it started."""
    held: list[Reservation] = []
    try:
        grpc = _hold(held, "gRPC", settings.grpc_host, settings.grpc_port, "--grpc-port")
        http = _hold(held, "HTTP", settings.http_host, settings.http_port, "--http-port")
        metrics = None
        if settings.metrics_port is not None:
            metrics = _hold(held, "HTTP", settings.http_host, settings.metrics_port, "--metrics-port").port
        shared = replace(settings, grpc_port=grpc.port, http_port=http.port, metrics_port=metrics, workers=1)
        asyncio.run(_Supervisor(shared, count).run(announce, _redis_label(settings)))
    finally:
        for reservation in held:
            reservation.close()


def _hold(held: list[Reservation], what: str, host: str, port: int, flag: str) -> Reservation:
    """Reserve ``host:port`` (see :func:`reserve`) and add it to ``held``; a port another of the server's
    own flags names already is refused as taken (a held port would otherwise admit it)."""
    if port and any(r.port == port for r in held):
        raise unavailable(what, host, port, flag, OSError(errno.EADDRINUSE, "in use"))
    reservation = reserve(what, host, port, flag)
    held.append(reservation)
    return reservation


#: The metrics directories of parents: ``parlour-metrics-<pid>-<random>`` in the temporary directory.
_METRICS_PREFIX = "parlour-metrics-"


def _sweep_metrics_dirs() -> None:
    """Remove the metrics directories this user's parents left behind when they were killed (SIGKILL gives
    no chance to tidy up): those whose parent's pid runs no process now."""
    for path in Path(tempfile.gettempdir()).glob(f"{_METRICS_PREFIX}*-*"):
        pid = path.name.removeprefix(_METRICS_PREFIX).split("-", 1)[0]
        try:
            if not pid.isdigit() or path.stat().st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:  # another user's process, or the directory went meanwhile
            continue


def _redis_label(settings: Settings) -> str:
    """The Redis a server uses, as its start line says it (the same words as a single process's)."""
    if settings.redis_cluster:
        return f"cluster {settings.redis_cluster}"
    return settings.redis_url or f"embedded in {settings.data_dir}"


async def _ended(process: asyncio.subprocess.Process) -> int:
    """The exit code of a worker that did not say it serves: it has closed its output (it is exiting)
    or never answered; the latter is killed. Never signals an exited one first: asyncio's Popen polls
    before it signals and so reaps the child under the child watcher, whose code then reads 255."""
    with contextlib.suppress(TimeoutError):
        return await asyncio.wait_for(process.wait(), EXIT_WAIT_S)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    return await process.wait()


def _how(code: int | None) -> str:
    """An exit status in words: ``code 1``, ``signal SIGKILL``."""
    if code is None:
        return "no status"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(-code).name}"
    return f"code {code}"


class _Supervisor:
    """The parent's event loop: starts, watches, restarts and stops the workers (and the embedded Redis)."""

    def __init__(self, settings: Settings, count: int) -> None:
        self._settings = settings
        self._count = count
        self._stopping = asyncio.Event()
        self._processes: dict[int, asyncio.subprocess.Process] = {}
        #: The parent's ends of the workers' standard inputs (a worker sees their end when the parent dies).
        self._inputs: dict[int, int] = {}
        self._redis: RedisProcess | None = None
        self._metrics_dir = ""
        #: What each worker reads on its standard input (see :func:`encode_settings`).
        self._order = b""

    async def run(self, announce: Announce, where: str) -> None:
        """Start everything, announce, keep the workers running until asked to stop, stop everything."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self._stopping.set)
        _sweep_metrics_dirs()
        self._metrics_dir = tempfile.mkdtemp(prefix=f"{_METRICS_PREFIX}{os.getpid()}-")
        tasks: list[asyncio.Task[None]] = []
        try:
            if not self._settings.redis_url and not self._settings.redis_cluster:
                self._redis = RedisProcess(self._settings.data_dir)
                self._redis.start()
                self._settings = replace(self._settings, redis_url=self._redis.url)
                tasks.append(asyncio.create_task(self._watch_redis()))
            self._order = encode_settings(self._settings)
            first = await self._start_all()
            if first is None:  # asked to stop while starting
                return
            announce(
                self._settings, self._settings.grpc_port, self._settings.http_port, f"{where}; {self._count} workers"
            )
            tasks += [asyncio.create_task(self._keep(slot, process)) for slot, process in first.items()]
            await self._stopping.wait()
        finally:
            await self._stop_workers()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self._redis is not None:
                self._redis.stop()
            shutil.rmtree(self._metrics_dir, ignore_errors=True)
            log.info("workers stopped", workers=self._count)

    async def _start_all(self) -> dict[int, asyncio.subprocess.Process] | None:
        """Start every worker at once and wait until each serves; None when asked to stop meanwhile.
        Raises WorkerStartError for the first that failed (the caller stops the others)."""
        starts = [asyncio.create_task(self._start(slot)) for slot in range(self._count)]
        everyone = asyncio.gather(*starts)
        stopped = asyncio.create_task(self._stopping.wait())
        try:
            either: list[asyncio.Future[Any]] = [everyone, stopped]
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if not everyone.done():
                return None
            return dict(enumerate(everyone.result()))
        finally:
            stopped.cancel()
            for start in starts:
                start.cancel()
            with contextlib.suppress(BaseException):  # its failure is raised above, or it was cancelled
                await everyone

    async def _start(self, slot: int) -> asyncio.subprocess.Process:
        """Start worker ``slot`` and wait until it serves. Raises WorkerStartError when it does not."""
        self._close_input(slot)
        read_end, write_end = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                *WORKER_COMMAND,
                str(os.getpid()),
                str(slot),
                stdin=read_end,
                stdout=asyncio.subprocess.PIPE,
                env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": self._metrics_dir},
                process_group=0,  # stopped by this parent, not by a Ctrl-C meant for it
            )
        except BaseException:
            os.close(write_end)
            raise
        finally:
            os.close(read_end)
        self._processes[slot] = process
        self._inputs[slot] = write_end
        assert process.stdout is not None
        line = b""
        with contextlib.suppress(OSError, TimeoutError):  # a worker dead already; one that never answers
            os.write(write_end, self._order)  # smaller than a pipe's buffer: never blocks
            line = await asyncio.wait_for(process.stdout.readline(), READY_TIMEOUT_S)
        if line != READY_LINE:
            code = await _ended(process)
            self._exited(slot, process)
            raise WorkerStartError(f"worker {slot} exited with {_how(code)} before it served (its log says why)")
        log.info("worker started", worker=slot, pid=process.pid)
        return process

    async def _keep(self, slot: int, process: asyncio.subprocess.Process) -> None:
        """Start worker ``slot`` again whenever it exits, until the server stops."""
        loop = asyncio.get_running_loop()
        quick = 0
        while True:
            serving = loop.time()
            code = await process.wait()
            self._exited(slot, process)
            if self._stopping.is_set():
                return
            quick = quick + 1 if loop.time() - serving < HEALTHY_S else 0
            while True:
                pause = backoff_seconds(quick)
                log.warning(
                    "worker exited; starting it again", worker=slot, pid=process.pid, exit=_how(code), pause_s=pause
                )
                if await self._stopped_within(pause):
                    return
                try:
                    process = await self._start(slot)
                    break
                except WorkerStartError as error:
                    if self._stopping.is_set():  # stopped under the start
                        return
                    log.error("worker did not start", worker=slot, error=str(error))
                    quick += 1

    def _exited(self, slot: int, process: asyncio.subprocess.Process) -> None:
        """Bookkeeping for a worker that has exited: its input closed, its live gauges dropped."""
        if self._inputs.get(slot) is not None and self._processes.get(slot) is process:
            self._close_input(slot)
        from prometheus_client.multiprocess import mark_process_dead

        mark_process_dead(process.pid, self._metrics_dir)  # type: ignore[no-untyped-call]  # untyped library

    def _close_input(self, slot: int) -> None:
        write_end = self._inputs.pop(slot, None)
        if write_end is not None:
            os.close(write_end)

    async def _stopped_within(self, seconds: float) -> bool:
        """Wait ``seconds`` (none: 0); True if the server is stopping by then."""
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), seconds)
        return self._stopping.is_set()

    async def _stop_workers(self) -> None:
        """SIGTERM to every worker, SIGKILL to those still running after :data:`STOP_TIMEOUT_S`."""
        self._stopping.set()
        running = [p for p in self._processes.values() if p.returncode is None]
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        if running:
            waits = [asyncio.create_task(process.wait()) for process in running]
            await asyncio.wait(waits, timeout=STOP_TIMEOUT_S)
            for process in running:
                if process.returncode is None:
                    log.warning("worker killed: it did not stop in time", pid=process.pid, seconds=STOP_TIMEOUT_S)
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
        for slot in list(self._inputs):
            self._close_input(slot)

    async def _watch_redis(self) -> None:
        """Start the embedded Redis again on its data whenever it has died (while the server runs)."""
        server = self._redis
        assert server is not None
        while not self._stopping.is_set():
            await asyncio.sleep(_REDIS_LOOK_S)
            if not server.running() and not self._stopping.is_set():
                log.warning("embedded Redis stopped; starting it again on the same data directory")
                # From this (the main) thread: Redis stops when the thread that started it ends.
                with contextlib.suppress(RuntimeError):
                    server.start()
