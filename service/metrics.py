"""Prometheus metrics of a server process (``prometheus-client``), served at ``/metrics``.

The metrics live in prometheus-client's default registry, with that library's process metrics. The
application, store and transports call the small functions below at their boundaries; nothing else here
knows about them. Gauges that describe the whole deployment (games in progress, the Redis round trip)
are sampled when ``/metrics`` is read (see :func:`render`). Labels never carry ids, seats or payloads:
metrics must not leak hidden information, and their number of series stays bounded.

The workers of ``parlour serve --workers N`` run in prometheus-client's multiprocess mode: their parent
sets ``PROMETHEUS_MULTIPROC_DIR`` to a fresh directory of its own (see ``service.workers``), each worker
keeps its values in files there, and ``/metrics`` on any worker (or on ``--metrics-port``) reads them all:

- counters and histograms are summed over every worker that has run, the dead ones included, so a
  restarted worker does not send a total backwards;
- gauges of one process (open streams, watchers, tournament schedulers) are shown per live worker, with
  a ``pid`` label (``sum()`` them for the server); a dead worker's are removed by the parent;
- gauges of the deployment, set at a scrape (games by status, the PING), show the most recent value.

That mode's limits (prometheus-client's documentation): the library's own process and platform
collectors (``process_*``, ``python_*``) are not exported, nor are Info or Enum metrics, exemplars or
``set_function`` gauges; label children cannot be removed. None of them is used here.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from service.event_loop import IdleAwareLoop

__all__ = [
    "CONTENT_TYPE",
    "CommandOutcome",
    "clock_timeout",
    "command",
    "count_event_loop_busy",
    "open_stream",
    "redis_append_batch",
    "redis_call",
    "redis_error",
    "render",
    "set_games",
    "set_redis_ping",
    "tail_delivered",
    "tournament_event",
]

#: The content type of :func:`render`'s text (the Prometheus text exposition format).
CONTENT_TYPE = CONTENT_TYPE_LATEST

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

COMMANDS = Counter(
    "parlour_commands",
    "Commands submitted, by game and result: applied, duplicate (a retry), or the error reason.",
    ["game", "result"],
)
COMMAND_SECONDS = Histogram(
    "parlour_command_seconds",
    "Time from receiving a command to its reply (events stored, or the refusal), by game.",
    ["game"],
    buckets=_LATENCY_BUCKETS,
)
GAMES = Gauge(
    "parlour_games",
    "Games in the store by status (running, finished), sampled at each scrape.",
    ["status"],
    multiprocess_mode="mostrecent",
)
OPEN_STREAMS = Gauge(
    "parlour_open_streams",
    "Server streams open in this process, by rpc and transport.",
    ["rpc", "transport"],
    multiprocess_mode="liveall",
)
WATCHERS = Gauge(
    "parlour_watchers",
    "Readers of live game and tournament logs in this process (one per open stream).",
    multiprocess_mode="liveall",
)
TAIL_LAG = Histogram(
    "parlour_tail_lag_seconds",
    "Time from storing an event to this process reading it from the live tail (clocks of replicas differ).",
    buckets=_LATENCY_BUCKETS,
)
REDIS_SECONDS = Histogram(
    "parlour_redis_command_seconds",
    "Round-trip time of Redis commands (blocking reads excluded), by command; commands sent together as "
    "PIPELINE and their names (PIPELINE EVALSHA+WAIT).",
    ["command"],
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5),
)
REDIS_APPEND_BATCH = Histogram(
    "parlour_redis_append_batch_size",
    "Appends sent to one Redis node together in one round trip (group commit): 1 when no other joined it.",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128),
)
EVENT_LOOP_BUSY = Counter(
    "parlour_event_loop_busy_seconds",
    "Seconds this process's event loop spent running callbacks rather than waiting for I/O or timers: its rate "
    "is the loop's utilisation (near 1: the process is saturated). asyncio's loop only, not uvloop.",
)
REDIS_ERRORS = Counter("parlour_redis_errors", "Redis commands that failed, by error class.", ["error"])
REDIS_PING = Gauge(
    "parlour_redis_ping_seconds",
    "Round trip of a PING to Redis, measured at each scrape.",
    multiprocess_mode="mostrecent",
)
CLOCK_TIMEOUTS = Counter(
    "parlour_clock_timeouts", "Seats whose clock ran out (charged by this process), by game.", ["game"]
)
TOURNAMENT_EVENTS = Counter(
    "parlour_tournament_events",
    "Tournament progress stored by this process, by kind: created, bot_registered, started, "
    "table_scheduled, table_finished, round_started, finished.",
    ["kind"],
)
TOURNAMENTS_SCHEDULED = Gauge(
    "parlour_tournaments_scheduled",
    "Running tournaments whose scheduler is in this process.",
    multiprocess_mode="liveall",
)


@dataclass
class CommandOutcome:
    """What :func:`command` records: fill in ``game`` once known and ``result`` on success."""

    game: str = "unknown"
    result: str = "server/internal"


#: The counter and histogram children by label values, looked up once each (``labels()`` costs more
#: than the count itself; the label values are bounded: games by name, results by reason).
_COMMAND_COUNTS: dict[tuple[str, str], Any] = {}
_COMMAND_TIMES: dict[str, Any] = {}
_REDIS_TIMES: dict[str, Any] = {}


class _Command:
    """The context manager :func:`command` returns."""

    __slots__ = ("outcome", "start")

    def __enter__(self) -> CommandOutcome:
        self.outcome = CommandOutcome()
        self.start = time.perf_counter()
        return self.outcome

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _: Any) -> None:
        outcome = self.outcome
        if isinstance(error, Exception):
            outcome.result = str(getattr(error, "reason", outcome.result))
        key = (outcome.game, outcome.result)
        counted = _COMMAND_COUNTS.get(key)
        if counted is None:
            counted = _COMMAND_COUNTS[key] = COMMANDS.labels(*key)
        timed = _COMMAND_TIMES.get(outcome.game)
        if timed is None:
            timed = _COMMAND_TIMES[outcome.game] = COMMAND_SECONDS.labels(outcome.game)
        counted.inc()
        timed.observe(time.perf_counter() - self.start)


def command() -> AbstractContextManager[CommandOutcome]:
    """Time one submitted command. On an exception the result is its ``reason`` attribute (a service
    error's reason) unless the body set another; the outcome is counted once either way."""
    return _Command()


@contextmanager
def open_stream(rpc: str, transport: str) -> Iterator[None]:
    """Count a server stream as open for the duration of the block."""
    gauge = OPEN_STREAMS.labels(rpc, transport)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def tail_delivered(recorded_at_ms: int) -> None:
    """A live tail read an event stored at ``recorded_at_ms`` (ms since the epoch; 0: unknown)."""
    if recorded_at_ms > 0:
        TAIL_LAG.observe(max(0.0, time.time() - recorded_at_ms / 1000))


def redis_call(name: str, seconds: float) -> None:
    """A Redis round trip ``name`` (a command, or ``PIPELINE`` and the names of those sent together) took
    ``seconds``."""
    timed = _REDIS_TIMES.get(name)
    if timed is None:
        timed = _REDIS_TIMES[name] = REDIS_SECONDS.labels(name.upper())
    timed.observe(seconds)


def redis_append_batch(size: int) -> None:
    """``size`` appends went to a Redis node together, in one round trip."""
    REDIS_APPEND_BATCH.observe(size)


def redis_error(error: BaseException) -> None:
    """A Redis command failed with ``error``."""
    REDIS_ERRORS.labels(type(error).__name__).inc()


def clock_timeout(game: str) -> None:
    """A seat of a ``game`` game ran out of time."""
    CLOCK_TIMEOUTS.labels(game).inc()


def tournament_event(kind: str) -> None:
    """A tournament event of ``kind`` was stored."""
    TOURNAMENT_EVENTS.labels(kind).inc()


#: Samples the deployment-wide gauges (games by status, the Redis round trip) before a scrape.
Sampler = Callable[[], Awaitable[None]]


async def count_event_loop_busy(period_s: float = 1.0) -> None:
    """Add the time the running loop spends busy to ``parlour_event_loop_busy_seconds`` every ``period_s``,
    for as long as it runs (cancel it to stop). Returns at once on a loop that cannot tell (uvloop)."""
    loop = asyncio.get_running_loop()
    if not isinstance(loop, IdleAwareLoop):
        return
    counted = loop.busy_seconds
    while True:
        await asyncio.sleep(period_s)
        busy = loop.busy_seconds
        EVENT_LOOP_BUSY.inc(busy - counted)
        counted = busy


def set_games(status: str, count: int) -> None:
    """There are ``count`` games with ``status`` in the store."""
    GAMES.labels(status).set(count)


def set_redis_ping(seconds: float) -> None:
    """A PING to Redis took ``seconds``."""
    REDIS_PING.set(seconds)


async def render(sample: Sampler | None = None) -> bytes:
    """Every metric in the Prometheus text format, after running ``sample``. When the sample fails (Redis
    away) the PING gauge is NaN and the other sampled gauges keep their last values; the failure itself
    is counted by the Redis metrics."""
    if sample is not None:
        try:
            await sample()
        except Exception:
            REDIS_PING.set(math.nan)
    return generate_latest(_registry())


#: What :func:`render` reads in multiprocess mode: every worker's files (made at the first scrape).
_merged: CollectorRegistry | None = None


def _registry() -> CollectorRegistry:
    """The default registry, or, in a worker of ``parlour serve --workers N`` (``PROMETHEUS_MULTIPROC_DIR``
    set), a registry that merges the files of every worker (as prometheus-client's documentation says:
    the metrics above, created in the default registry, are exported through the files only)."""
    global _merged  # noqa: PLW0603  (one per process, made once)
    if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
        return REGISTRY
    if _merged is None:
        _merged = CollectorRegistry()
        MultiProcessCollector(_merged)  # type: ignore[no-untyped-call]  # untyped library
    return _merged
