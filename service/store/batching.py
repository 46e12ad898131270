"""Group commit: appends ready while a round trip to their Redis node is in flight, or while the event loop
is busy with other requests, go out together in one round trip to that node.

See :class:`GroupCommit`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio.cluster import ClusterNode

from service import event_loop, metrics
from service.store.acks import Call, ScriptRunner
from service.store.failures import StoreUnavailableError, is_unavailable

__all__ = ["GroupCommit"]

#: At most this many appends go in one round trip ...
MAX_APPENDS = 128
#: ... and at most about this many bytes of their arguments (one larger append still goes, alone).
MAX_BYTES = 1 << 20
#: How long appends are held at most, while the event loop is busy, for more to join them.
HOLD_S = 0.002
#: A loop busy this share of its time lately has more requests waiting than it has taken up (grpc.aio takes
#: up about one call per turn of the loop): an append made then is held for theirs, whatever ``may_join``
#: says. One command at a time keeps the loop busy about half the time; two, over three quarters.
BUSY_ENOUGH_TO_HOLD = 0.75


@dataclass(slots=True)
class _Waiting:
    """An append queued behind a round trip in flight: its run of the script, its size, its caller's reply and
    context (a batch is sent in its oldest caller's: its request id, in the logs and the wire metrics)."""

    call: Call
    size: int
    reply: asyncio.Future[Any]
    context: contextvars.Context


@dataclass(slots=True)
class _Lane:
    """The appends of one Redis node: whether a round trip of theirs is in flight, and those waiting for it."""

    node: ClusterNode | None
    busy: bool = False
    queue: deque[_Waiting] = field(default_factory=deque)
    #: While appends are held for the loop to go idle: the timer that ends the hold anyway.
    hold: asyncio.TimerHandle | None = None
    #: Whether the loop is to tell this lane when it next goes idle (asked once, however long it is busy).
    idle_asked: bool = False


class GroupCommit:
    """Runs a :class:`~service.store.acks.ScriptRunner`'s script (the append) for many callers, sharing
    round trips: a caller gets the same reply, or the same error, as from the runner, but not a round trip of
    its own when others are ready at the same time.

    - An append with no round trip of appends in flight to its node (on a cluster the master of its first
      key's slot; else the one Redis) is held until the event loop has no other callback ready, and at most
      ``hold_s``: while the loop is busy with other requests, their appends join it. A saturated loop (busy
      nearly all the time lately: more requests are waiting) holds it for the whole ``hold_s``. It is sent
      at once by its caller when no other append is likely to join it (``may_join`` says none is under way
      and the loop has been busy less than :data:`BUSY_ENOUGH_TO_HOLD` of its time lately: one command at
      a time), on a loop that cannot tell when it is idle (see :func:`service.event_loop.call_when_idle`),
      and with ``hold_s=0``.
    - Appends to a node that has a round trip in flight, or whose appends are being held, queue up. One
      task sends them, oldest first, at most :data:`MAX_APPENDS` (and about :data:`MAX_BYTES` of
      arguments) per round trip, in one pipeline without a transaction (each run is still its own atomic
      script, with its own expected version, command id and last-event digest), and with one ``WAIT`` after
      them all when replica acknowledgements are asked. The appends that queued during that round trip are
      then held as above (or, when they cannot be, or fill a batch, sent at once), until none is left.
    - Each caller gets its own reply or its own error (a conflict, a duplicate, a forked log refuse only
      that command). A shortfall of replicas fails the whole batch, and so does a failed connection, as
      StoreUnavailableError: each append may or may not have happened, and a retry with the same command
      id is safe. See :meth:`ScriptRunner.batch` for a script Redis lost and for a cluster's failover.
    - A caller cancelled while its append is queued leaves the batch: it is not sent if it has not been yet
      (once sent, it may happen; its reply is dropped). Cancelling a caller never fails another's append.
    """

    def __init__(
        self, runner: ScriptRunner, *, hold_s: float = HOLD_S, may_join: Callable[[], bool] | None = None
    ) -> None:
        """Batch the runs of ``runner``'s script, holding appends for at most ``hold_s`` (0: never), when
        ``may_join`` says other appends are under way (by default, always) or the loop is busy enough."""
        self._runner = runner
        self._hold_s = hold_s
        self._may_join = may_join or _always
        self._lanes: dict[str, _Lane] = {}
        self._senders: set[asyncio.Task[None]] = set()  # referenced while they run

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """The script's reply for ``keys`` and ``args`` (after the replicas acknowledged, when asked)."""
        node = await self._runner.node_of(keys[0])
        name = "" if node is None else node.name
        lane = self._lanes.get(name)
        if lane is None:
            lane = self._lanes[name] = _Lane(node)
        lane.node = node  # the newest client object for that node (the client replaces them on a failover)
        if not lane.busy and self._hold(lane):
            lane.busy = True
        if lane.busy:
            waiting = _Waiting(
                (keys, args), _size(args), asyncio.get_running_loop().create_future(), contextvars.copy_context()
            )
            lane.queue.append(waiting)
            if lane.hold is not None and len(lane.queue) >= MAX_APPENDS:
                self._release(lane)
            return await waiting.reply
        lane.busy = True
        try:
            metrics.redis_append_batch(1)
            return await self._runner(keys, args)
        finally:
            self._next(lane)

    def _hold(self, lane: _Lane) -> bool:
        """Hold ``lane``'s appends until the loop goes idle, for at most ``hold_s``; False when they cannot
        be held (no hold asked for, no other append likely to join, or a loop that cannot tell when it is
        idle)."""
        if self._hold_s <= 0 or not self._others_likely() or not self._ask_idle(lane):
            return False
        lane.hold = asyncio.get_running_loop().call_later(self._hold_s, self._release, lane)
        return True

    def _others_likely(self) -> bool:
        """Whether other appends are likely to join one made now (see the class docstring)."""
        return self._may_join() or event_loop.busy() >= BUSY_ENOUGH_TO_HOLD

    def _ask_idle(self, lane: _Lane) -> bool:
        """Whether the loop will tell ``lane`` when it next goes idle (asked now if it was not yet)."""
        if not lane.idle_asked:
            lane.idle_asked = event_loop.call_when_idle(self._on_idle, lane)
        return lane.idle_asked

    def _on_idle(self, lane: _Lane) -> None:
        lane.idle_asked = False
        self._release(lane)

    def _release(self, lane: _Lane) -> None:
        """End ``lane``'s hold, if it still holds its appends: send them. (The loop went idle, the hold's
        time ran out or a batch is full; whichever comes later finds the hold over.)"""
        if lane.hold is None:
            return
        lane.hold.cancel()
        lane.hold = None
        self._next(lane)

    def _next(self, lane: _Lane) -> None:
        """A round trip of ``lane``'s is over: send what queued behind it, or leave the lane idle."""
        if not lane.queue:
            lane.busy = False
            return
        sender = asyncio.get_running_loop().create_task(self._send_queued(lane), context=lane.queue[0].context)
        self._senders.add(sender)
        sender.add_done_callback(self._senders.discard)

    async def _send_queued(self, lane: _Lane) -> None:
        """Send ``lane``'s queue, a batch per round trip, until it is empty; then leave the lane idle. When
        appends queued during a round trip and the loop can tell when it is idle, they are held again
        instead (see the class docstring), for more to join them."""
        batch: list[_Waiting] = []
        try:
            while batch := _take(lane.queue):
                metrics.redis_append_batch(len(batch))
                for waiting, outcome in zip(batch, await self._run(lane.node, batch), strict=True):
                    _answer(waiting, outcome)
                if 0 < len(lane.queue) < MAX_APPENDS and self._hold(lane):
                    return
        except BaseException as error:  # cancelled (the loop is closing) or a bug: no caller waits forever
            for waiting in [*batch, *lane.queue]:
                _answer(waiting, StoreUnavailableError() if isinstance(error, asyncio.CancelledError) else error)
            lane.queue.clear()
            lane.busy = False
            raise
        lane.busy = False

    async def _run(self, node: ClusterNode | None, batch: list[_Waiting]) -> list[Any]:
        """Each append's reply or error; a batch of one is sent as the runner sends a single append."""
        try:
            if len(batch) == 1:
                return [await self._runner(*batch[0].call)]
            return await self._runner.batch(node, [waiting.call for waiting in batch])
        except Exception as error:
            return [_unavailable(error) for _ in batch] if is_unavailable(error) else [error] * len(batch)


def _always() -> bool:
    return True


def _take(queue: deque[_Waiting]) -> list[_Waiting]:
    """The next batch from ``queue``: the oldest appends whose callers still wait, within the limits."""
    batch: list[_Waiting] = []
    size = 0
    while queue and len(batch) < MAX_APPENDS:
        waiting = queue[0]
        if waiting.reply.done():  # its caller was cancelled
            queue.popleft()
            continue
        if batch and size + waiting.size > MAX_BYTES:
            break
        batch.append(queue.popleft())
        size += waiting.size
    return batch


def _answer(waiting: _Waiting, outcome: Any) -> None:
    """Give a waiting caller its reply, or its error (unless it stopped waiting)."""
    if waiting.reply.done():
        return
    if isinstance(outcome, BaseException):
        waiting.reply.set_exception(outcome)
    else:
        waiting.reply.set_result(outcome)


def _unavailable(error: Exception) -> StoreUnavailableError:
    """A caller's own StoreUnavailableError for a batch that failed with ``error`` (its sentence kept)."""
    own = StoreUnavailableError(*error.args) if isinstance(error, StoreUnavailableError) else StoreUnavailableError()
    own.__cause__ = error
    return own


def _size(args: Sequence[Any]) -> int:
    """About how many bytes ``args`` take on the wire."""
    return sum(len(arg) if isinstance(arg, (bytes, str)) else 8 for arg in args)
