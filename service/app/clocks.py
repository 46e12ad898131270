"""Game clocks: time controls measured by the server, and timeouts applied exactly once.

Two parts, wired in this order by the composition root. :class:`ClockKeeper` measures the think time
recorded with a seat's command (from when the seat's clock started; a game without a clock from the
previous event), and is a game observer: when a game with a clock changes in this process, it charges the
seat that moved for that think time (handed over in memory with the change, and ending the seat's turn),
starts the clock of every seat that must act now and stores a deadline for it in Redis. A game created
with a time control gets its clock when its last seat is claimed. :class:`Clocks` runs in every server
process over the application: it claims due deadlines atomically and plays the game's default command for
the seat with the server's authority, at the version the deadline was set for and with the command id
``timeout:<game>:<seat>:<version>``: whichever process claims it, and however often it is retried, the
timeout is applied once, and never after the seat has moved. After ``max_timeouts`` timeouts a seat is
dropped: its deadlines are due at once, so the server plays all its later moves.

A process that dies between storing a command and setting the next deadlines leaves its game without
them; every process's enforcer also sweeps the running clocked games every ``sweep_seconds`` and, for a
game still behind at two sweeps in a row, does the lost work (charging a move is recorded per version, so
it is never charged twice).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import structlog

from service import metrics
from service.app.errors import ServiceError
from service.app.games import Games
from service.app.observers import GameChange
from service.app.records import GameRecord
from service.app.time_control import TimeControl, think_since
from service.store.clock_port import ClockRecord, ClockStore, Deadline, Move
from service.store.failures import is_unavailable
from service.store.port import LoggedGames, StoredEvent

__all__ = ["ClockKeeper", "Clocks", "timeout_command_id", "wait_for_event"]

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


class ClockKeeper:
    """The clock observer of one server process: charges moves and sets deadlines as games change."""

    def __init__(self, clocks: ClockStore, store: LoggedGames, now_ms: Callable[[], int]) -> None:
        """``now_ms`` is the server's clock; ``store`` is read only for moves a change did not hand over
        (a game reported again by the sweep)."""
        self._clocks = clocks
        self._store = store
        self._now_ms = now_ms
        #: Set whenever a deadline is stored, so this process's enforcer looks at it at once.
        self.wake = asyncio.Event()
        # Games seen without a clock: most games have none, and asking Redis after every command costs a
        # round trip. A clock is given right after creation (start() forgets the game here), before any move.
        self._unclocked: set[str] = set()
        # When each pending seat's clock started, by game, as this process last set them: (version, starts).
        self._turns: dict[str, tuple[int, dict[int, int]]] = {}

    @property
    def store(self) -> ClockStore:
        """The clocks' store."""
        return self._clocks

    async def start(self, game_id: str, control: TimeControl, seats: int, version: int, pending: list[int]) -> None:
        """Give a game at ``version`` its clock (unless it has one) and start the clocks of ``pending``."""
        fields = {
            "move_ms": control.move_ms,
            "bank_ms": control.bank_ms,
            "increment_ms": control.increment_ms,
            "max_timeouts": control.max_timeouts,
        }
        await self._clocks.create(game_id, fields, seats, version)
        self._unclocked.discard(game_id)
        clock = await self._clocks.load(game_id)
        if clock is not None:
            await self._schedule(game_id, clock, pending, version)

    async def has_clock(self, game_id: str) -> bool:
        """Whether the game was given a clock."""
        return await self._clocks.load(game_id) is not None

    async def think_ms(self, game_id: str, seat: int, version: int, now_ms: int, previous_ms: int) -> int:
        """The time ``seat`` took for its command decided at ``version`` and stored at ``now_ms``: since the
        seat's clock started, or, with no clock running for it, since the previous event (stored at
        ``previous_ms``). Asks Redis only for a clocked game whose clocks at ``version`` this process did
        not set itself."""
        started = await self._turn_started(game_id, seat, version)
        return think_since(now_ms, previous_ms if started is None else started)

    async def _turn_started(self, game_id: str, seat: int, version: int) -> int | None:
        if game_id in self._unclocked:
            return None
        turns = self._turns.get(game_id)
        if turns is not None and turns[0] == version and seat in turns[1]:
            return turns[1][seat]  # the deadlines of this version were set here: nothing moved since
        return await self._clocks.turn_started(game_id, seat)

    def recheck(self, game_id: str) -> None:
        """Look for the game's clock again at its next change (another process may have given it one)."""
        self._unclocked.discard(game_id)

    async def game_changed(self, change: GameChange) -> None:
        """Charge the seat that just moved and set the deadlines of the seats that must act now. Never
        raises (the command is stored already): a failure is logged."""
        try:
            await self._changed(change)
        except Exception:
            log.exception("clock update failed", game_id=change.game_id, version=change.version)

    async def _changed(self, change: GameChange) -> None:
        game_id = change.game_id
        if game_id in self._unclocked:
            return
        clock = await self._clocks.load(game_id)
        if clock is None:
            await self._start_when_ready(change)
            return
        if change.version > clock.charged:
            clock = await self._charge(change, clock)
        if change.game.is_over(change.state):
            self._turns.pop(game_id, None)
            await self._clocks.finish(game_id)
            return
        await self._schedule(game_id, clock, sorted(change.game.pending(change.state)), change.version)

    async def _start_when_ready(self, change: GameChange) -> None:
        """Start the clock of a game created with a time control once every seat is claimed (nothing for a
        game without one). The record in hand may predate the last claim: a game that looks ready but not
        full is read again."""
        record = change.record
        if record.time_control is None:
            if len(self._unclocked) > 100_000:
                self._unclocked.clear()
            self._unclocked.add(change.game_id)
            return
        if not record.full:
            meta = await self._store.meta(change.game_id)
            record = GameRecord.parse(change.game_id, meta) if meta is not None else record
        if record.full and not record.finished and record.time_control is not None:
            pending = sorted(change.game.pending(change.state))
            await self.start(change.game_id, record.time_control, record.config.seats, change.version, pending)

    async def _charge(self, change: GameChange, clock: ClockRecord) -> ClockRecord:
        """Charge every move after the clock's last charged version up to the change's version: from the
        events in hand when they cover them all, else read from the log."""
        events: tuple[StoredEvent, ...] | list[StoredEvent] = change.events
        if not events or events[0].version > clock.charged + 1:
            events = await self._store.read(change.game_id, clock.charged + 1, change.version - clock.charged)
        moves = [
            Move(e.version, e.seat, e.think_ms, e.timed_out)
            for e in events
            if e.command and e.seat is not None and e.version > clock.charged
        ]
        timeouts = await self._clocks.charge(change.game_id, change.version, moves)
        for move in moves:
            if move.version in timeouts:
                metrics.clock_timeout(change.game.spec.name)
                log.info(
                    "seat timed out",
                    game_id=change.game_id,
                    seat=move.seat,
                    charged_ms=move.think_ms,
                    dropped=timeouts[move.version],
                )
        return await self._clocks.load(change.game_id) or clock

    async def _schedule(self, game_id: str, clock: ClockRecord, seats: list[int], version: int) -> None:
        now = self._now_ms()
        starts: dict[int, int] = {}
        for seat in seats:
            since = await self._clocks.start_turn(game_id, seat, version, now)
            if since is None:
                self._turns.pop(game_id, None)
                break  # the game moved on; whoever moved it schedules the next deadlines
            starts[seat] = since
            due = now if seat in clock.dropped else since + clock.move_ms + clock.banks.get(seat, clock.bank_ms)
            await self._clocks.set_deadline(Deadline(game_id, seat, version), due)
            self.wake.set()
        else:
            self._remember_turns(game_id, version, starts)
        await self._clocks.mark_scheduled(game_id, version)

    def _remember_turns(self, game_id: str, version: int, starts: dict[int, int]) -> None:
        """Keep when the seats pending at ``version`` started, for their think times (bounded)."""
        if len(self._turns) > 100_000:
            self._turns.clear()
        self._turns[game_id] = (version, starts)

    async def is_dropped(self, game_id: str, seat: int) -> bool:
        """Whether the seat was dropped (too many timeouts)."""
        clock = await self._clocks.load(game_id)
        return clock is not None and seat in clock.dropped

    async def deadline_ms(self, game_id: str, seat: int) -> int | None:
        """When the seat's time runs out (ms since the epoch), or None when its clock is not running."""
        due = (await self.deadlines(game_id)).get(seat)
        return due[0] if due else None

    async def deadlines(self, game_id: str) -> dict[int, tuple[int, int]]:
        """By seat whose clock runs: (when its time runs out, its bank left), in ms (see
        :class:`~service.app.time_control.Deadlines`)."""
        clock = await self._clocks.load(game_id)
        if clock is None:
            return {}
        banks = {seat: clock.banks.get(seat, clock.bank_ms) for seat in clock.since}
        return {seat: (since + clock.move_ms + banks[seat], banks[seat]) for seat, since in clock.since.items()}


class Clocks:
    """The deadline enforcer of one server process, over the application and its clock keeper."""

    def __init__(
        self,
        keeper: ClockKeeper,
        games: Games,
        now_ms: Callable[[], int],
        *,
        poll_seconds: float = 1.0,
        lease_ms: int = 10_000,
        sweep_seconds: float = 5.0,
    ) -> None:
        """``keeper`` must be one of ``games``'s observers. The enforcer sleeps until the earliest deadline,
        and at most ``poll_seconds`` (to see deadlines set by other processes); it sweeps for games left
        behind every ``sweep_seconds``."""
        self.keeper = keeper
        self.games = games
        self._clocks = keeper.store
        self._now_ms = now_ms
        self._poll = poll_seconds
        self._lease_ms = lease_ms
        self._sweep_seconds = sweep_seconds
        self._suspects: set[tuple[str, int]] = set()
        self._inflight: set[asyncio.Task[None]] = set()
        self._closed = False

    # --- setting clocks -----------------------------------------------------------------------------

    async def start(self, game_id: str, control: TimeControl, seats: int) -> None:
        """Give a game its clock now (unless it has one) and start the clocks of the seats that must act."""
        view = await self.games.get_view(game_id, None, None)
        await self.keeper.start(game_id, control, seats, view.version, list(view.pending_seats))

    async def start_when_ready(self, game_id: str) -> None:
        """Start the clock of a game created with a time control once every seat is claimed (idempotent;
        nothing for a game without a time control)."""
        await self.games.tell_observers(game_id)

    async def has_clock(self, game_id: str) -> bool:
        """Whether the game was given a clock."""
        return await self.keeper.has_clock(game_id)

    async def deadline_ms(self, game_id: str, seat: int) -> int | None:
        """When the seat's time runs out (ms since the epoch), or None when its clock is not running."""
        return await self.keeper.deadline_ms(game_id, seat)

    async def is_dropped(self, game_id: str, seat: int) -> bool:
        """Whether the seat was dropped (too many timeouts): the server plays all its later moves."""
        return await self.keeper.is_dropped(game_id, seat)

    # --- enforcing deadlines ------------------------------------------------------------------------
    async def run(self) -> None:
        """Claim and apply due deadlines, and sweep for games left behind, until cancelled."""
        loop = asyncio.get_running_loop()
        next_sweep = loop.time() + self._sweep_seconds
        away = False
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
            except Exception as error:  # Redis unreachable for a moment: keep polling
                if not is_unavailable(error):
                    log.exception("claiming deadlines failed")
                elif not away:  # said once per outage, without a traceback (one each poll would flood)
                    log.warning("claiming deadlines failed: the store is not reachable")
                away = is_unavailable(error)
            else:
                away = False
            self.keeper.wake.clear()
            await wait_for_event(self.keeper.wake, delay)

    async def _sweep(self) -> None:
        """Redo the clock work of games whose newest version had no deadlines set at the last sweep and
        still has none (work lost when a process stopped after storing a command)."""
        behind = set(await self._clocks.behind())
        for game_id, version in sorted(behind & self._suspects):
            log.warning("clock work recovered", game_id=game_id, version=version)
            self.keeper.recheck(game_id)
            await self.games.tell_observers(game_id)
        self._suspects = behind

    def close(self) -> None:
        """Make :meth:`run` return at its next turn (it is also cancelled)."""
        self._closed = True
        self.keeper.wake.set()

    async def stop(self) -> None:
        """Wait for the timeouts being applied."""
        for task in list(self._inflight):
            with contextlib.suppress(Exception):
                await task

    async def _expire(self, deadline: Deadline) -> None:
        """Play the default command for the deadline's seat, once; forget the deadline."""
        try:
            await self.games.commands.play_default(
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
