"""Streams whose client stopped reading are ended, so that none is held open forever.

A server stream's write waits while the client's flow-control window is full: a client that never reads
(or vanished without closing its connection) would keep its call, its buffers and its place in the live
fan-out for as long as the connection lives. Every stream writes through a :class:`Stalls` registry: a write
that has waited ``limit_s`` seconds is interrupted and the stream ends with ``limit/streams``
(RESOURCE_EXHAUSTED) and a sentence saying how to resume. Nobody else waits for that client meanwhile: the
live fan-out only buffers for it (service.store.tail).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

from service.app.errors import ServiceError

__all__ = ["StalledWriter", "Stalls"]

T = TypeVar("T")


class StalledWriter:
    """The writes of one stream; see :meth:`Stalls.watching`."""

    __slots__ = ("_loop", "_task", "since", "stalled")

    def __init__(self, task: asyncio.Task[object], loop: asyncio.AbstractEventLoop) -> None:
        self._task = task
        self._loop = loop
        #: When the write in progress began (loop time), or None between writes.
        self.since: float | None = None
        self.stalled = False

    async def send(self, write: Callable[[T], Awaitable[None]], item: T) -> None:
        """``await write(item)``; raises limit/streams when the write was interrupted as stalled."""
        self.since = self._loop.time()
        try:
            await write(item)
        except asyncio.CancelledError:
            if not self.stalled:
                raise
            self._task.uncancel()
            raise ServiceError(
                "limit/streams",
                "this stream was ended because its client stopped reading: nothing it was sent was taken for "
                "too long; open it again from the version after the last event received",
            ) from None
        finally:
            self.since = None

    def interrupt(self) -> None:
        """End the stream's current write as stalled."""
        self.stalled = True
        self._task.cancel()


class Stalls:
    """Every open stream's writer; a sweep interrupts writes that have waited more than ``limit_s``."""

    def __init__(self, limit_s: float = 30.0) -> None:
        """``limit_s``: how long one write may wait for the client (0: forever)."""
        self._limit = limit_s
        self._writers: set[StalledWriter] = set()
        self._sweep: asyncio.Task[None] | None = None

    @contextlib.contextmanager
    def watching(self) -> Iterator[StalledWriter]:
        """The writer of the stream the current task serves, watched while the block runs."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None, "a stream is served by a task"
        writer = StalledWriter(task, loop)
        self._writers.add(writer)
        if self._limit > 0 and (self._sweep is None or self._sweep.done()):
            self._sweep = loop.create_task(self._sweeping())
        try:
            yield writer
        finally:
            self._writers.discard(writer)

    async def _sweeping(self) -> None:
        """Interrupt stalled writes, checking a few times per ``limit_s``, while any stream is open."""
        loop = asyncio.get_running_loop()
        while self._writers:
            await asyncio.sleep(self._limit / 4)
            now = loop.time()
            for writer in list(self._writers):
                if writer.since is not None and not writer.stalled and now - writer.since > self._limit:
                    writer.interrupt()
