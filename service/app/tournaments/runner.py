"""The scheduler of one tournament, run by the server process that holds the tournament's lease.

It is a loop over the tournament's state: schedule the current round's games (up to the parallel limit),
watch every unfinished game until it ends and record its result, and start the next round (or finish)
once every game of the round is over. A ladder has no rounds: whenever its connected bots that are free
make a table (:func:`service.app.ladder.matching.match`), the table is scheduled, one at a time.

Duplicate deals (the same seed at several tables, seats rotated) are played so that the server tells
no one anything about a deal from another of its tables while one of them is played: the tables of one
deal (which share their bots) run one after another, never at once; each is created ``held``, so once it
is over it is *withheld* (see ``GameRecord.withheld``: only its own seats read it, no spectator, no
result, no export, no seed); and only once every table of the deal is over are its games released
(public, exportable) and their results recorded, all together, in the tournament's log, so its
events and standings never reflect part of a deal. What a bot remembers of a table it played itself is
not the server's to withhold (see ``TournamentSettings.duplicate_seeds``).

Every step is decided from the stored events, so a scheduler that starts after a restart (or on another
process, once the lease has lapsed) resumes where the last one stopped: games already scheduled are only
watched, and seats not yet given out are given out.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import Awaitable, Callable

import structlog

from parlour.v1 import game_pb2
from parlour.v1 import tournament_service_pb2 as pb
from service.app.bots import Bots
from service.app.clocks import Clocks, wait_for_event
from service.app.games import Games
from service.app.ladder.matching import Candidate, match
from service.app.time_control import TimeControl
from service.app.tournaments.plan import PlannedTable, plan_round, seat_token
from service.app.tournaments.state import BotRecord, Table, TournamentState
from service.store.bot_port import AssignmentRecord, BotNotice

__all__ = ["Runner"]

log = structlog.get_logger("parlour.tournaments")

_FINISHED, _MOVED, _IDLE = "finished", "moved", "idle"
#: How long a ladder's free bots wait for others to come free before a table is made of fewer than two
#: tables' worth of them.
POOL_WAIT_MS = 2000
#: How long the next rotation of a ladder's duplicate deal waits for its bots to be connected.
ROTATION_WAIT_MS = 30_000

Load = Callable[[str], Awaitable[TournamentState]]
Append = Callable[[str, pb.TournamentEvent, int], Awaitable[bool]]


class Runner:
    """Runs one tournament to its end (see the module docstring)."""

    def __init__(  # noqa: PLR0917 - the runner's collaborators, wired by Tournaments only
        self, tournament_id: str, secret: bytes, games: Games, bots: Bots, clocks: Clocks, load: Load, append: Append
    ) -> None:
        self._id = tournament_id
        self._secret = secret
        self._games = games
        self._bots = bots
        self._clocks = clocks
        self._load = load
        self._append = append
        self._wake = asyncio.Event()
        self._watchers: dict[str, asyncio.Task[None]] = {}
        self._plans: dict[int, list[PlannedTable]] = {}
        #: Games that are over but not yet recorded (tables of a duplicate deal still being played).
        self._over: set[str] = set()
        #: A ladder's connected bots that are free, by name: since when (the loop's clock, ms).
        self._free_since: dict[str, int] = {}
        #: A ladder's duplicate deals whose next rotation waits for its bots: since when (the loop's clock, ms).
        self._rotation_ready: dict[int, int] = {}
        #: Games that are over but not yet recorded: by seat, the commands the server played for it.
        self._timeouts: dict[str, list[int]] = {}

    async def run(self) -> None:
        """Drive the tournament until it is finished (or the task is cancelled)."""
        try:
            while (outcome := await self._step()) != _FINISHED:
                if outcome == _IDLE:
                    await wait_for_event(self._wake, 1.0)
                    self._wake.clear()
        finally:
            for task in self._watchers.values():
                task.cancel()

    async def _step(self) -> str:
        """One pass: _FINISHED, _MOVED (the log moved on: look again now) or _IDLE (wait for a game)."""
        state = await self._load(self._id)
        self._over = {game_id for game_id in self._over if game_id not in state.finished}
        if state.status == pb.TOURNAMENT_STATUS_FINISHED:
            return _FINISHED
        if state.status != pb.TOURNAMENT_STATUS_RUNNING:
            return _IDLE
        for table in state.tables.values():
            if not self._is_over(state, table.game_id) and table.game_id not in self._watchers:
                await self._seat(state, table)
                self._watchers[table.game_id] = asyncio.create_task(self._watch(table))
        if state.is_ladder:
            return await self._match(state)
        plan = self._plan(state)
        scheduled = state.tables_of(state.round)
        running = len(set(state.tables) - state.finished - self._over)
        limit = state.settings.max_parallel_games or 16
        for planned in plan:
            if planned.index not in scheduled and running < limit and self._may_start(state, plan, planned):
                await self._schedule(state, planned)
                return _MOVED
        if len(scheduled) == len(plan) and all(t.game_id in state.finished for t in scheduled.values()):
            await self._next_round(state)
            return _MOVED
        return _IDLE

    async def _match(self, state: TournamentState) -> str:
        """A ladder's step: seat the first table :func:`match` makes of the connected, free bots (_MOVED),
        or _IDLE when it makes none. Fewer than two tables' worth of free bots wait until one of them has
        waited :data:`POOL_WAIT_MS` (else the bots of a table that just ended would meet again and again,
        the only ones free)."""
        settings = state.settings
        if paused := state.to_pause():
            await self._pause(state, paused[0])
            return _MOVED
        present = await self._bots.present(sorted(state.bots))
        now = int(asyncio.get_running_loop().time() * 1000)
        if settings.duplicate_seeds and (rotation := self._next_rotation(state, present, now)) is not None:
            await self._schedule(state, rotation)
            return _MOVED
        # A bot is busy until its table's result is in the log (with duplicate deals: its deal's last), so
        # the log alone shows each bot at no more tables at once than its cap.
        playing = {
            t.deal if settings.duplicate_seeds else t.index: t.seats
            for t in state.tables.values()
            if t.game_id not in state.finished
        }
        busy = Counter(bot for seats in playing.values() for bot in seats)
        for name in list(self._free_since):
            if name not in present or busy[name]:
                del self._free_since[name]
        candidates = [
            Candidate(
                name,
                record.mu,
                record.sigma,
                busy[name],
                settings.max_games_per_bot or 1,
                self._free_since.setdefault(name, now),
            )
            for name, record in state.bots.items()
            if name in present and not record.paused
        ]
        free = [c for c in candidates if c.free]
        if len(free) < 2 * settings.table_size and all(now - c.waiting_since_ms < POOL_WAIT_MS for c in free):
            return _IDLE  # a moment for more bots to come free, so that tables mix rather than repeat
        recent = [t.seats for t in sorted(state.tables.values(), key=lambda t: t.index)[-len(state.bots) :]]
        sizes = range(settings.min_table_size or settings.table_size, settings.table_size + 1)
        tables = match(candidates, sizes, recent)
        if not tables:
            return _IDLE
        index = len(state.tables)
        await self._schedule(state, PlannedTable(index, tables[0], self._ladder_seed(index), index))
        return _MOVED

    async def _pause(self, state: TournamentState, bot: BotRecord) -> None:
        """Pause ``bot`` (its clock ran out in too many games in a row) and tell its connections why."""
        reason = (
            f"bot {bot.name!r} is paused on ladder {self._id!r}: the server had to play for it (its clock ran out) "
            f"in {bot.timeout_streak} of its games in a row; it is seated no more until it registers again "
            f"(RegisterBot, or restart parlour bot --ladder {self._id}) once it answers within the time control"
        )
        event = pb.TournamentEvent(bot_paused=pb.BotPaused(bot_name=bot.name, reason=reason))
        if await self._append(self._id, event, state.version):
            log.info("bot paused", tournament_id=self._id, bot=bot.name, timeouts_in_a_row=bot.timeout_streak)
            await self._bots.notify(bot.name, BotNotice(self._id, "ladder/paused", reason))

    def _ladder_seed(self, deal: int) -> bytes:
        """The seed of a ladder's deal (named by the index of its first table)."""
        return hashlib.sha256(self._secret + f":ladder:{deal}".encode()).digest()

    def _next_rotation(self, state: TournamentState, present: set[str], now_ms: int) -> PlannedTable | None:
        """A ladder's next rotation of a duplicate deal whose last table is over, if any: the same deal
        and bots, the seats rotated by one more. It waits for its bots to be connected, up to
        :data:`ROTATION_WAIT_MS` (then it is played all the same, the clock playing for who is missing:
        the deal's bots are busy until it ends)."""
        latest: dict[int, Table] = {}
        for table in state.tables.values():
            if table.deal not in latest or table.rotation > latest[table.deal].rotation:
                latest[table.deal] = table
        for deal, table in sorted(latest.items()):
            if table.rotation + 1 < len(table.seats) and self._is_over(state, table.game_id):
                ready_since = self._rotation_ready.setdefault(deal, now_ms)
                if not set(table.seats) <= present and now_ms - ready_since < ROTATION_WAIT_MS:
                    continue
                del self._rotation_ready[deal]
                shift = table.rotation + 1
                first = state.deal_of(table)[0].seats
                seats = first[shift:] + first[:shift]
                return PlannedTable(len(state.tables), seats, self._ladder_seed(deal), deal, shift)
        return None

    def _plan(self, state: TournamentState) -> list[PlannedTable]:
        """The current round's plan, made once per round (the bots and the round's order are fixed)."""
        cached = self._plans.get(state.round)
        if cached is None:
            cached = self._plans[state.round] = plan_round(state, self._secret)
        return cached

    def _may_start(self, state: TournamentState, plan: list[PlannedTable], planned: PlannedTable) -> bool:
        """Whether ``planned`` may be scheduled now: always, unless it is a later rotation of a duplicate
        deal, which waits until every earlier table of its deal is scheduled and over (they share bots)."""
        if not state.settings.duplicate_seeds:
            return True
        scheduled = state.tables_of(state.round)
        earlier = [t for t in plan if t.deal == planned.deal and t.index < planned.index]
        return all(t.index in scheduled and self._is_over(state, scheduled[t.index].game_id) for t in earlier)

    def _is_over(self, state: TournamentState, game_id: str) -> bool:
        return game_id in state.finished or game_id in self._over

    async def _next_round(self, state: TournamentState) -> None:
        if state.round < state.settings.rounds:
            event = pb.TournamentEvent(round_started=pb.RoundStarted(round=state.round + 1))
        else:
            event = pb.TournamentEvent(finished=pb.TournamentFinished())
        await self._append(self._id, event, state.version)
        log.info("tournament advanced", tournament_id=self._id, round=state.round, kind=event.WhichOneof("kind"))

    async def _schedule(self, state: TournamentState, planned: PlannedTable) -> None:
        settings = state.settings
        control = TimeControl.from_proto(settings.time_control) if settings.HasField("time_control") else None

        def holders(game_id: str) -> list[tuple[str, str]]:
            return [(bot, seat_token(self._secret, game_id, seat)) for seat, bot in enumerate(planned.seats)]

        summary = await self._games.create_game(
            settings.game,
            len(planned.seats),
            dict(settings.options),
            planned.seed,
            time_control=control,
            holders=holders,  # the seats are the tournament's from the moment the game exists
            held=settings.duplicate_seeds,
            rules_version=settings.rules_version,  # empty in tournaments made before versions were stated
        )
        scheduled = pb.TableScheduled(
            round=state.round, table=planned.index, game_id=summary.game_id, seats=list(planned.seats)
        )
        if state.is_ladder and settings.duplicate_seeds:
            scheduled.deal, scheduled.rotation = planned.deal, planned.rotation
        if await self._append(self._id, pb.TournamentEvent(table_scheduled=scheduled), state.version):
            log.info("table scheduled", tournament_id=self._id, game_id=summary.game_id, round=state.round)

    async def _seat(self, state: TournamentState, table: Table) -> None:
        """Give out the table's seats and start its clock (if it has a time control). Idempotent, so it is
        safe to repeat after a crash anywhere in it: seat tokens are derived from the secret, a bot gets a
        seat only once, and a clock is started only once."""
        game = await self._games.record(table.game_id)
        if game.finished:
            return  # over, though not recorded yet (a duplicate deal's table): nothing to give out
        for seat in range(game.config.seats):
            bot = table.seats[seat]
            token = seat_token(self._secret, table.game_id, seat)
            if seat not in game.claims:
                await self._games.claim_seat(table.game_id, seat, bot, token=token)
            record = AssignmentRecord(table.game_id, game.game.spec.name, seat, token, self._id)
            await self._bots.assign(bot, record)
        await self._clocks.start_when_ready(table.game_id)

    async def _watch(self, table: Table) -> None:
        """Wait for the game's end and record its result, counting by seat the commands the server played
        because the seat's clock ran out. The scheduler watches with the server's own authority (a table
        that is over may be withheld from spectators), from the game's start (after a restart too)."""
        timeouts: Counter[int] = Counter()
        async for reply in self._games.watch_checked(table.game_id, 1, None, by_command=True):
            first = reply.events[0] if reply.events else None
            if first is not None and first.timed_out and first.HasField("seat"):
                timeouts[first.seat] += 1
        if not (await self._games.record(table.game_id)).finished:
            self._watchers.pop(table.game_id, None)
            self._wake.set()
            return
        self._over.add(table.game_id)  # before the watcher is dropped: the table is not watched again
        self._watchers.pop(table.game_id, None)
        self._timeouts[table.game_id] = [timeouts[seat] for seat in range(len(table.seats))]
        state = await self._load(self._id)
        if state.is_ladder and state.settings.duplicate_seeds:
            await self._finish_ladder_deal(state, table)
        elif state.settings.duplicate_seeds:
            await self._finish_deal(state, table)
        else:
            await self._record_result(table)
        self._wake.set()

    async def _finish_deal(self, state: TournamentState, table: Table) -> None:
        """Once every table of ``table``'s deal is over: release their games, then record their results in
        plan order. Safe to repeat (after a restart, or when two tables end at once)."""
        plan = self._plan(state)
        deal = plan[table.index].deal
        scheduled = state.tables_of(table.round)
        tables = [scheduled.get(t.index) for t in plan if t.deal == deal]
        if any(t is None or not self._is_over(state, t.game_id) for t in tables):
            return
        done = [t for t in tables if t is not None]
        for each in done:
            await self._games.release(each.game_id)
        for each in done:
            await self._record_result(each)
        log.info("deal finished", tournament_id=self._id, round=table.round, deal=deal, tables=len(done))

    async def _finish_ladder_deal(self, state: TournamentState, table: Table) -> None:
        """Once every rotation of ``table``'s deal (on a ladder) is over: release their games, then record
        their results in rotation order. Safe to repeat."""
        tables = state.deal_of(table)
        if len(tables) < len(table.seats) or any(not self._is_over(state, t.game_id) for t in tables):
            return
        for each in tables:
            await self._games.release(each.game_id)
        for each in tables:
            await self._record_result(each)
        log.info("deal finished", tournament_id=self._id, deal=table.deal, tables=len(tables))

    async def _record_result(self, table: Table) -> None:
        """Append the table's TableFinished (once) with its game's results."""
        record = await self._games.record(table.game_id)
        results = [
            game_pb2.SeatResult(seat=r.seat, score=r.score, rank=r.rank, player_name=table.seats[r.seat])
            for r in record.seat_results()
        ]
        timeouts = self._timeouts.pop(table.game_id, [])
        finished = pb.TableFinished(game_id=table.game_id, results=results, timeouts=timeouts)
        while True:
            state = await self._load(self._id)
            if table.game_id in state.finished:
                return
            if await self._append(self._id, pb.TournamentEvent(table_finished=finished), state.version):
                return
