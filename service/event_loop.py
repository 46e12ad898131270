"""The event loop a server process runs on: asyncio's own, or uvloop (libuv) with ``PARLOUR_EVENT_LOOP=uvloop``.

asyncio's loop is the default, as :class:`IdleAwareLoop`: asyncio's selector loop that can also run a
callback when it next goes idle (:func:`call_when_idle`), so that work which gains from being done together
(the store's group commit) can wait while the loop is busy with other requests and go at once when it is not.

uvloop spends less time per callback and per socket operation, but it
raises RuntimeError on a write to a connection whose transport has already closed, where asyncio's loop
drops the write and the read then fails as a lost connection; during a Redis failover redis-py does write
on such connections (a cluster client's pipelines among them), and not every such path maps the error to
the store being unreachable. Measured, it did not bring the command path closer to the baseline either
(it made both cheaper), so it is there to try, not the default. On uvloop the group commit does not
hold appends for the loop to go idle (it cannot tell when it does), so under load its batches stay small.
"""

from __future__ import annotations

import asyncio
import os
import selectors
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["IdleAwareLoop", "call_when_idle", "loop_factory", "loop_name", "run"]

T = TypeVar("T")


class _IdleSelector(selectors.DefaultSelector):  # the platform's own selector class
    """The platform's default selector that, when its loop is about to wait (a select with a timeout other
    than 0: no callback is ready), first hands the callbacks waiting for that moment to the loop, to run at
    once (it then does not wait)."""

    def __init__(self) -> None:
        super().__init__()
        self.on_idle: list[tuple[Callable[..., object], tuple[Any, ...]]] = []
        self.call_soon: Callable[..., object] | None = None

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        """As the platform selector's select, but an idle moment runs the waiting callbacks first."""
        if self.on_idle and timeout != 0 and self.call_soon is not None:
            waiting, self.on_idle = self.on_idle, []
            for callback, args in waiting:
                self.call_soon(callback, *args)
            timeout = 0
        events: list[tuple[selectors.SelectorKey, int]] = super().select(timeout)
        return events


class IdleAwareLoop(asyncio.SelectorEventLoop):
    """asyncio's selector event loop, plus :meth:`call_when_idle`."""

    def __init__(self) -> None:
        """A loop on the platform's default selector."""
        self._idle_selector = _IdleSelector()
        super().__init__(self._idle_selector)
        self._idle_selector.call_soon = self.call_soon

    def call_when_idle(self, callback: Callable[..., object], *args: Any) -> None:
        """Run ``callback(*args)`` once, as a ready callback, as soon as no other callback is ready (the
        loop would otherwise wait for I/O or a timer). Under load that may be long: pair it with a timer."""
        self._idle_selector.on_idle.append((callback, args))


def call_when_idle(callback: Callable[..., object], *args: Any) -> bool:
    """Ask the running loop to run ``callback(*args)`` once when it next goes idle (see
    :meth:`IdleAwareLoop.call_when_idle`); False, with nothing scheduled, when the running loop cannot
    tell (uvloop, or a loop not made by :func:`loop_factory`)."""
    loop = asyncio.get_running_loop()
    if not isinstance(loop, IdleAwareLoop):
        return False
    loop.call_when_idle(callback, *args)
    return True


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes the loop: uvloop's when ``PARLOUR_EVENT_LOOP=uvloop`` and it is installed, else
    :class:`IdleAwareLoop` (asyncio's)."""
    if os.environ.get("PARLOUR_EVENT_LOOP", "").lower() != "uvloop":
        return IdleAwareLoop
    try:
        import uvloop
    except ImportError:  # not on this platform (Windows): asyncio's loop
        return IdleAwareLoop
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def loop_name() -> str:
    """ "uvloop" or "asyncio": the loop :func:`run` uses here."""
    return "asyncio" if loop_factory() is IdleAwareLoop else "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion on a new loop of :func:`loop_factory` (like ``asyncio.run``)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
