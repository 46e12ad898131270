"""One worker of ``parlour serve --workers N``, started by its parent (:mod:`service.workers`), never by hand:
``python -m service.worker PARENT_PID SLOT``, its settings on standard input (:func:`encode_settings`).

A worker is a whole server (``build_app``) whose listeners share the parent's ports (``SO_REUSEPORT``).
It writes :data:`READY_LINE` on its standard output once it serves, then sends what it would print there
to standard error. It stops as a single server does on SIGTERM or SIGINT, and when its parent dies:
Linux's parent-death signal kills it at once (the parent's embedded Redis is gone too, and the ports must
be free for a new server), and elsewhere the end of its standard input (a pipe only the parent holds) stops
it. Its log lines carry ``worker`` (its slot, 0 to N-1) and ``pid``, and are written whole, so that the
lines of several workers on one standard error do not mix.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import io
import os
import pickle
import signal
import struct
import sys
from collections.abc import MutableMapping, Sequence
from typing import Any

import structlog

from service.config import Settings
from service.heap import settle_start_up
from service.logs import configure_logging
from service.workers import READY_LINE, STOP_GRACE_S

__all__ = ["main"]

log = structlog.get_logger("parlour.worker")

_PR_SET_PDEATHSIG = 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run one worker until it is told to stop; the exit status."""
    parent, slot = (int(value) for value in (sys.argv[1:] if argv is None else argv))
    _exit_with(parent)
    settings = _read_settings()
    _whole_lines()
    configure_logging(settings.log_level, json=settings.log_json)
    _label_logs(slot)
    from service.api.ports import PortUnavailableError
    from service.event_loop import run

    try:
        run(_serve(settings))
    except (PortUnavailableError, OSError) as error:
        print(f"parlour serve: worker {slot} cannot start: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


def _exit_with(parent: int) -> None:
    """Be killed when the parent dies (Linux); leave now if it is gone already."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent:
        raise SystemExit(1)


def _read_settings() -> Settings:
    """The settings the parent wrote on standard input."""
    (size,) = struct.unpack(">Q", _read_exactly(8))
    settings = pickle.loads(_read_exactly(size))  # written by the parent, from its own code
    assert isinstance(settings, Settings)
    return settings


def _read_exactly(size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.read(0, size)
        if not chunk:
            raise SystemExit("parlour serve: a worker's settings were cut short (its parent is gone)")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _whole_lines() -> None:
    """Standard error that writes each line in one call (lines up to 4 KiB of several workers sharing a
    pipe never interleave); the interpreter's own, unbuffered, writes a line and its end separately."""
    sys.stderr.flush()
    raw = io.FileIO(2, "w", closefd=False)
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(raw, 1 << 16), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )


def _label_logs(slot: int) -> None:
    """Every log line of this process carries ``worker`` (the slot) and ``pid``."""
    pid = os.getpid()

    def label(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        event.setdefault("worker", slot)
        event.setdefault("pid", pid)
        return event

    processors = structlog.get_config()["processors"]
    structlog.configure(processors=[label, *processors])


async def _serve(settings: Settings) -> None:
    from service.bootstrap import build_app

    app = build_app(settings, share_ports=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    loop.add_reader(0, _parent_input, stop)
    await app.start()
    settle_start_up()
    _ready()
    await stop.wait()
    loop.remove_reader(0)
    await app.stop(STOP_GRACE_S)


def _parent_input(stop: asyncio.Event) -> None:
    """Standard input became readable: at its end (the parent is gone), stop."""
    if not os.read(0, 4096):
        asyncio.get_running_loop().remove_reader(0)
        log.warning("parent gone; stopping")
        stop.set()


def _ready() -> None:
    """Tell the parent this worker serves; later output to standard output goes to standard error."""
    sys.stdout.flush()
    os.write(1, READY_LINE)
    os.dup2(2, 1)


if __name__ == "__main__":
    sys.exit(main())
