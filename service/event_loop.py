"""The event loop a server process runs on: asyncio's own, or uvloop (libuv) with ``PARLOUR_EVENT_LOOP=uvloop``.

asyncio's loop is the default. uvloop spends less time per callback and per socket operation, but it
raises RuntimeError on a write to a connection whose transport has already closed, where asyncio's loop
drops the write and the read then fails as a lost connection; during a Redis failover redis-py does write
on such connections (a cluster client's pipelines among them), and not every such path maps the error to
the store being unreachable. Measured, it did not bring the command path closer to the baseline either
(it made both cheaper), so it is there to try, not the default.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["loop_factory", "loop_name", "run"]

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the loop: uvloop's when ``PARLOUR_EVENT_LOOP=uvloop`` and it is installed, else None
    (asyncio's default)."""
    if os.environ.get("PARLOUR_EVENT_LOOP", "").lower() != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:  # not on this platform (Windows): asyncio's loop
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def loop_name() -> str:
    """ "uvloop" or "asyncio": the loop :func:`run` uses here."""
    return "asyncio" if loop_factory() is None else "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion on a new loop of :func:`loop_factory` (like ``asyncio.run``)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
