"""Readiness: whether this server can serve now, which is whether its game store answers.

One task per process asks the store every ``every`` seconds and reports each change (gRPC health and the
HTTP readiness endpoint follow it), so a load balancer stops sending calls while Redis is away and sends
them again when it is back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

__all__ = ["Readiness"]

log = structlog.get_logger("parlour.readiness")


class Readiness:
    """The store's reachability, as last seen."""

    def __init__(
        self,
        probe: Callable[[], Awaitable[bool]],
        on_change: Callable[[bool], Awaitable[None]],
        every: float = 0.5,
    ) -> None:
        """``probe`` says whether the store answers (it must not raise); ``on_change`` is told each change."""
        self._probe = probe
        self._on_change = on_change
        self._every = every
        self.ready = True

    async def check(self) -> bool:
        """Ask the store once; report a change. Returns the new readiness."""
        ready = await self._probe()
        if ready != self.ready:
            self.ready = ready
            log.warning("store reachable again" if ready else "store not reachable; not serving")
            await self._on_change(ready)
        return ready

    async def run(self) -> None:
        """Check forever (cancel to stop)."""
        while True:
            await self.check()
            await asyncio.sleep(self._every)
