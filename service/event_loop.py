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
import math
import os
import selectors
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = [
    "BUSY_WINDOW_S",
    "SATURATED",
    "IdleAwareLoop",
    "busy",
    "call_when_idle",
    "loop_factory",
    "loop_name",
    "run",
]

T = TypeVar("T")


#: The share of its time a loop must have been busy lately (over about :data:`BUSY_WINDOW_S`) to count as
#: saturated: its brief idle moments are then not idle enough (see :meth:`IdleAwareLoop.call_when_idle`).
SATURATED = 0.9
#: How far back the busy share looks (the time constant of its moving average).
BUSY_WINDOW_S = 0.01
#: How long a saturated loop with callbacks waiting for it to go idle waits at most, before it looks again.
_SATURATED_WAIT_S = BUSY_WINDOW_S / 10


class _IdleSelector(selectors.DefaultSelector):  # the platform's own selector class
    """The platform's default selector, measuring how busy its loop is (:attr:`busy`: the share of time
    spent outside select, a moving average over about :data:`BUSY_WINDOW_S`), that hands the callbacks
    waiting for the loop to go idle to the loop, to run at once, when the loop is about to wait (a select
    with a timeout other than 0: no callback is ready) and is not saturated."""

    def __init__(self) -> None:
        super().__init__()
        self.on_idle: list[tuple[Callable[..., object], tuple[Any, ...]]] = []
        self.call_soon: Callable[..., object] | None = None
        self.busy = 0.0
        #: Seconds spent outside select since the selector was made (the loop running callbacks).
        self.busy_s = 0.0
        self._left = time.perf_counter()  # when the last select returned

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        """As the platform selector's select, but an idle moment runs the waiting callbacks first."""
        entered = time.perf_counter()
        if self.on_idle and timeout != 0 and self.call_soon is not None:
            if self.busy < SATURATED:
                waiting, self.on_idle = self.on_idle, []
                for callback, args in waiting:
                    self.call_soon(callback, *args)
                timeout = 0
            elif timeout is None or timeout > _SATURATED_WAIT_S:
                timeout = _SATURATED_WAIT_S  # idle for that long, the busy share falls: look again
        events: list[tuple[selectors.SelectorKey, int]] = super().select(timeout)
        left = time.perf_counter()
        span = left - self._left
        if span > 0:
            kept = math.exp(-span / BUSY_WINDOW_S)
            self.busy = self.busy * kept + (1 - kept) * (entered - self._left) / span
        self.busy_s += entered - self._left
        self._left = left
        return events


class IdleAwareLoop(asyncio.SelectorEventLoop):
    """asyncio's selector event loop, plus :meth:`call_when_idle`, :attr:`busy` and :attr:`busy_seconds`."""

    def __init__(self) -> None:
        """A loop on the platform's default selector."""
        self._idle_selector = _IdleSelector()
        super().__init__(self._idle_selector)
        self._idle_selector.call_soon = self.call_soon

    @property
    def busy(self) -> float:
        """The share of its time the loop has spent running callbacks lately (0 to 1; a moving average over
        about :data:`BUSY_WINDOW_S`), as of its last look for I/O."""
        return self._idle_selector.busy

    @property
    def busy_seconds(self) -> float:
        """Seconds the loop has spent running callbacks (not waiting for I/O or timers) since it was made, as
        of its last look for I/O."""
        return self._idle_selector.busy_s

    def call_when_idle(self, callback: Callable[..., object], *args: Any) -> None:
        """Run ``callback(*args)`` once, as a ready callback, as soon as no other callback is ready (the
        loop would otherwise wait for I/O or a timer) and the loop is not saturated (busy less than
        :data:`SATURATED` of its time lately). A saturated loop's idle moments are brief, more work is about
        to come: it runs the callback only once it has been idle about a millisecond. Under load that
        may be long: pair it with a timer."""
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


def busy() -> float:
    """The running loop's busy share lately (see :attr:`IdleAwareLoop.busy`); 0 when it cannot tell."""
    loop = asyncio.get_running_loop()
    return loop.busy if isinstance(loop, IdleAwareLoop) else 0.0


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
