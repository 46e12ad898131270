"""Game clocks: time controls measured by the server, and timeouts applied exactly once.

How it works. A game created with a time control gets its clock when its last seat is claimed (or when
:meth:`Clocks.start` is called). When a game with a clock changes in this process, :class:`Clocks` (a game
observer) charges the seat that moved for its think time (recorded by the store with the move's events),
starts the clock of every seat that must act now and stores a deadline for it in Redis. Every server
process runs :meth:`Clocks.run`, which claims due deadlines atomically and plays the game's default
command for the seat with the server's authority, at the version the deadline was set for and with the
command id ``timeout:<game>:<seat>:<version>``: whichever process claims it, and however often it is
retried, the timeout is applied once, and never after the seat has moved. After ``max_timeouts`` timeouts
a seat is dropped: its deadlines are due at once, so the server plays all its later moves.

A process that dies between storing a command and setting the next deadlines leaves its game without
them; every process's enforcer also sweeps the running clocked games every ``sweep_seconds`` and, for a
game still behind at two sweeps in a row, does the lost work (charging a move is recorded per version, so
it is never charged twice).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import structlog

from engines.contract import AnyGame
from service.app.errors import ServiceError
from service.app.games import Games
from service.app.time_control import TimeControl
from service.store.clocks import ClockRecord, Deadline, Move, RedisClocks
from service.store.port import EventStore

__all__ = ["Clocks", "timeout_command_id", "wait_for_event"]

log = structlog.get_logger("parlour.clocks")

_GIVE_UP = {"game/stale_version", "command/not_your_turn", "game/over", "game/not_found"}


async def wait_for_event(event: asyncio.Event, seconds: float) -> None:
    """Wait until ``event`` is set or ``seconds`` have passed. Unlike ``asyncio.wait_for`` on Python 3.11,
    never swallows a cancellation."""
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({waiter}, timeout=seconds)
    finally:
        waiter.cancel()


def timeout_command_id(deadline: Deadline) -> str:
    """The command id of the move the server plays when ``deadline`` passes."""
    return f"timeout:{deadline.game_id}:{deadline.seat}:{deadline.version}"


class Clocks:
    """The clock observer and the deadline enforcer of one server process."""

    def __init__(
        self,
        clocks: RedisClocks,
        store: EventStore,
        now_ms: Callable[[], int],
        *,
        poll_seconds: float = 1.0,
        lease_ms: int = 10_000,
        sweep_seconds: float = 5.0,
    ) -> None:
        """``now_ms`` is the server's clock. The enforcer sleeps until the earliest deadline, and at most
        ``poll_seconds`` (to see deadlines set by other processes); it sweeps for games left behind every
        ``sweep_seconds``. Call :meth:`bind` before running."""
        self._clocks = clocks
        self._store = store
        self._now_ms = now_ms
        self._poll = poll_seconds
        self._lease_ms = lease_ms
        self._sweep_seconds = sweep_seconds
        self._suspects: set[tuple[str, int]] = set()
        self._games: Games | None = None
        self._inflight: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._closed = False
        # Games seen without a clock: most games have none, and asking Redis after every command costs a
        # round trip. A clock is given right after creation (start() forgets the game here), before any move.
        self._unclocked: set[str] = set()

    def bind(self, games: Games) -> None:
        """Use ``games`` to read games and play default moves, and observe it."""
        self._games = games
        games.add_observer(self)

    @property
    def games(self) -> Games:
        """The bound application."""
        if self._games is None:
            raise RuntimeError("Clocks.bind(games) was not called")
        return self._games

    # --- setting clocks -----------------------------------------------------------------------------

    async def start(self, game_id: str, control: TimeControl, seats: int) -> None:
        """Give a game its clock (unless it has one) and start the clocks of the seats that must act now."""
        fields = {
            "move_ms": control.move_ms,
            "bank_ms": control.bank_ms,
            "increment_ms": control.increment_ms,
            "max_timeouts": control.max_timeouts,
        }
        view = await self.games.get_view(game_id, None, None)
        await self._clocks.create(game_id, fields, seats, view.version)
        self._unclocked.discard(game_id)
        clock = await self._clocks.load(game_id)
        if clock is not None:
            await self._schedule(game_id, clock, list(view.pending_seats), view.version)

    async def start_when_ready(self, game_id: str) -> None:
        """Start the clock of a game created with a time control once every seat is claimed (idempotent;
        nothing for a game without a time control)."""
        record = await self.games.record(game_id)
        if record.time_control is None:
            if len(self._unclocked) > 100_000:
                self._unclocked.clear()
            self._unclocked.add(game_id)
        elif record.full and not record.finished and not await self.has_clock(game_id):
            await self.start(game_id, record.time_control, record.config.seats)

    async def has_clock(self, game_id: str) -> bool:
        """Whether the game was given a clock."""
        return await self._clocks.load(game_id) is not None

    async def game_changed(self, game_id: str, game: AnyGame, state: Any, version: int) -> None:
        """Charge the seat that just moved and set the deadlines of the seats that must act now. Never
        raises (the command is stored already): a failure is logged."""
        try:
            await self._changed(game_id, game, state, version)
        except Exception:
            log.exception("clock update failed", game_id=game_id, version=version)

    async def _changed(self, game_id: str, game: AnyGame, state: Any, version: int) -> None:
        if game_id in self._unclocked:
            return
        clock = await self._clocks.load(game_id)
        if clock is None:
            await self.start_when_ready(game_id)
            return
        if version > clock.charged:
            clock = await self._charge(game_id, clock, version)
        if game.is_over(state):
            await self._clocks.finish(game_id)
            return
        await self._schedule(game_id, clock, sorted(game.pending(state)), version)

    async def _charge(self, game_id: str, clock: ClockRecord, version: int) -> ClockRecord:
        """Charge every move after the clock's last charged version up to ``version``."""
        events = await self._store.read(game_id, clock.charged + 1, version - clock.charged)
        moves = [Move(e.version, e.seat, e.think_ms, e.timed_out) for e in events if e.command and e.seat is not None]
        timeouts = await self._clocks.charge(game_id, version, moves)
        for move in moves:
            if move.version in timeouts:
                log.info(
                    "seat timed out",
                    game_id=game_id,
                    seat=move.seat,
                    charged_ms=move.think_ms,
                    dropped=timeouts[move.version],
                )
        return await self._clocks.load(game_id) or clock

    async def _schedule(self, game_id: str, clock: ClockRecord, seats: list[int], version: int) -> None:
        now = self._now_ms()
        for seat in seats:
            since = await self._clocks.start_turn(game_id, seat, version, now)
            if since is None:
                break  # the game moved on; whoever moved it schedules the next deadlines
            due = now if seat in clock.dropped else since + clock.move_ms + clock.banks.get(seat, clock.bank_ms)
            await self._clocks.set_deadline(Deadline(game_id, seat, version), due)
            self._wake.set()
        await self._clocks.mark_scheduled(game_id, version)

    async def deadline_ms(self, game_id: str, seat: int) -> int | None:
        """When the seat's time runs out (ms since the epoch), or None when its clock is not running."""
        clock = await self._clocks.load(game_id)
        if clock is None or seat not in clock.since:
            return None
        return clock.since[seat] + clock.move_ms + clock.banks.get(seat, clock.bank_ms)

    # --- enforcing deadlines ------------------------------------------------------------------------

    async def run(self) -> None:
        """Claim and apply due deadlines, and sweep for games left behind, until cancelled."""
        loop = asyncio.get_running_loop()
        next_sweep = loop.time() + self._sweep_seconds
        while not self._closed:
            delay = min(self._poll, max(next_sweep - loop.time(), 0.0))
            try:
                if loop.time() >= next_sweep:
                    next_sweep = loop.time() + self._sweep_seconds
                    await self._sweep()
                for deadline in await self._clocks.claim_due(self._now_ms(), 64, self._lease_ms):
                    task = asyncio.create_task(self._expire(deadline))
                    self._inflight.add(task)
                    task.add_done_callback(self._inflight.discard)
                due = await self._clocks.next_due()
                if due is not None:
                    delay = min(max((due - self._now_ms()) / 1000, 0.005), delay)
            except Exception:  # Redis unreachable for a moment: keep polling
                log.exception("claiming deadlines failed")
            self._wake.clear()
            await wait_for_event(self._wake, delay)

    async def _sweep(self) -> None:
        """Redo the clock work of games whose newest version had no deadlines set at the last sweep and
        still has none (work lost when a process stopped after storing a command)."""
        behind = set(await self._clocks.behind())
        for game_id, version in sorted(behind & self._suspects):
            log.warning("clock work recovered", game_id=game_id, version=version)
            self._unclocked.discard(game_id)
            await self.games.tell_observers(game_id)
        self._suspects = behind

    def close(self) -> None:
        """Make :meth:`run` return at its next turn (it is also cancelled)."""
        self._closed = True
        self._wake.set()

    async def stop(self) -> None:
        """Wait for the timeouts being applied."""
        for task in list(self._inflight):
            with contextlib.suppress(Exception):
                await task

    async def _expire(self, deadline: Deadline) -> None:
        """Play the default command for the deadline's seat, once; forget the deadline."""
        try:
            await self.games.play_default(
                deadline.game_id,
                deadline.seat,
                expected_version=deadline.version,
                command_id=timeout_command_id(deadline),
            )
        except ServiceError as error:
            if error.reason not in _GIVE_UP:
                log.warning("timeout not applied", game_id=deadline.game_id, seat=deadline.seat, reason=error.reason)
                return  # keep the deadline: it is claimed again when the lease ends
        except Exception:
            log.exception("timeout failed", game_id=deadline.game_id, seat=deadline.seat)
            return
        await self._clocks.done(deadline)
