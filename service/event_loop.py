"""The event loop a server process runs on: uvloop (libuv) where it is installed, else asyncio's own.

uvloop runs the same asyncio programs with less time spent per callback and per socket operation;
grpc.aio, redis-py and aiohttp work on it unchanged. ``PARLOUR_EVENT_LOOP=asyncio`` keeps asyncio's loop
(to rule the loop out when chasing a problem)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["loop_factory", "loop_name", "run"]

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the loop: uvloop's when installed and not turned off, else None (asyncio's default)."""
    if os.environ.get("PARLOUR_EVENT_LOOP", "").lower() == "asyncio":
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
