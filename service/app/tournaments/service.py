"""The tournament use cases (create, register, start, standings, list, watch) and the loop that runs
the schedulers of this server process.

A tournament is its event log, kept and tailed like a game's (see ``service.store.tournament_port``);
every read folds it. Appends are optimistic, so two server processes never record conflicting steps, and
each step of a scheduler has an id, so a step sent again is recorded once. The scheduler of a running
tournament runs in whichever process holds its lease (renewed while it runs; taken over when a process
stops), so after a restart the tournament goes on where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
from collections.abc import AsyncIterator, Callable

import structlog

from engines.contract import AnyGame
from engines.errors import GameError
from parlour.v1 import tournament_service_pb2 as pb
from service import metrics
from service.app.api_keys import CALLER_KEY
from service.app.bots import Bots
from service.app.clocks import Clocks
from service.app.errors import ServiceError, from_game_error, loggable
from service.app.games import Games
from service.app.time_control import TimeControl
from service.app.tournaments.limits import FieldLimits
from service.app.tournaments.log import event_id, is_final, tournament_event
from service.app.tournaments.runner import Runner
from service.app.tournaments.state import TournamentState, fold_tournament
from service.store.port import CommandIdReusedError, VersionConflictError
from service.store.tournament_port import TournamentStore

__all__ = ["Tournaments"]

log = structlog.get_logger("parlour.tournaments")

_LEASE_MS = 6000
_CACHED_STATES = 1000


class Tournaments:
    """Tournament use cases over the tournament store, the games and the bots."""

    def __init__(
        self,
        store: TournamentStore,
        games: Games,
        bots: Bots,
        clocks: Clocks,
        now_ms: Callable[[], int],
        *,
        limits: FieldLimits | None = None,
    ) -> None:
        self._limits = limits or FieldLimits()
        self._store = store
        self._games = games
        self._bots = bots
        self._clocks = clocks
        self._now_ms = now_ms
        self._owner = secrets.token_hex(8)
        self._runners: dict[str, asyncio.Task[None]] = {}
        self._done: set[str] = set()
        self._closed = False
        self._states: dict[str, TournamentState] = {}

    def close(self) -> None:
        """Make :meth:`run` return at its next turn (it is also cancelled)."""
        self._closed = True

    # --- reading ----------------------------------------------------------------------------------

    async def load(self, tournament_id: str) -> TournamentState:
        """The tournament's current state; tournament/not_found when there is none. States are cached and
        brought up to date with the events appended since (never changed once returned: treat as read-only)."""
        if not (1 <= len(tournament_id) <= 64 and tournament_id.isalnum()):
            raise _not_found(tournament_id)
        known = self._states.get(tournament_id)
        events = await self._store.read(tournament_id, known.version + 1 if known else 1)
        if known is not None and not events:
            return known
        state = fold_tournament(tournament_id, events, known)
        if state is None:
            raise _not_found(tournament_id)
        newest = self._states.get(tournament_id)
        if newest is None or newest.version < state.version:  # another load may have gone further meanwhile
            if newest is None and len(self._states) >= _CACHED_STATES:
                self._states.pop(next(iter(self._states)))
            self._states[tournament_id] = state
        return state

    async def standings(self, tournament_id: str) -> tuple[pb.Tournament, list[pb.Standing]]:
        """The summary and the standings, best first."""
        state = await self.load(tournament_id)
        return state.summary(), state.standings()

    async def list_all(self) -> list[pb.Tournament]:
        """Every tournament's summary, newest first."""
        return [(await self.load(tid)).summary() for tid in await self._store.ids()]

    async def watch(self, tournament_id: str, from_version: int) -> AsyncIterator[pb.WatchTournamentResponse]:
        """Events from ``from_version`` with the summary and standings after each; ends after the last.

        The batch strengths are fitted once per version for every stream and GetStandings alike (on the
        cached state): a reply carries them when its event is the newest the server has, so the replies
        that replay the past (before the stream caught up) carry the online ratings only."""
        if from_version < 0:
            raise ServiceError("request/invalid", "from_version must be 0 or more (0 and 1 both mean the start)")
        start = max(from_version, 1)
        loaded = await self.load(tournament_id)
        if loaded.status == pb.TOURNAMENT_STATUS_FINISHED and start > loaded.version:
            return
        state: TournamentState | None = None  # folded here from the first event (the cached one is shared)
        async for stored in self._store.tail(tournament_id, 1):
            event = tournament_event(stored)
            if state is None:
                state = TournamentState(tournament_id, event.created.settings, stored.recorded_at_ms)
            state.apply(event)
            if stored.version >= start:
                yield pb.WatchTournamentResponse(
                    event=event, tournament=state.summary(), standings=await self._standings_at(state, loaded.version)
                )
            if is_final(event):
                return

    async def _standings_at(self, state: TournamentState, caught_up: int) -> list[pb.Standing]:
        """The standings after ``state`` (a stream's own fold): with the batch strengths of the shared, cached
        state when ``state`` is its newest version, else (a reply replaying the past) without them."""
        if state.version >= caught_up:
            current = await self.load(state.tournament_id)
            if current.version == state.version:
                return current.standings()
        return state.standings(with_batch=False)

    # --- changing ---------------------------------------------------------------------------------

    async def create(self, settings: pb.TournamentSettings) -> pb.Tournament:
        """Create a tournament open for registration (settings validated first), its games all under one
        rules version: the one the settings name, or the current one (then stated in its settings)."""
        game = self._games.engine(settings.game, settings.rules_version)
        settings = _with_rules(settings, game.spec.rules_version)
        _validate(settings, game)
        if settings.HasField("time_control"):
            try:
                self._games.check_clock(TimeControl.from_proto(settings.time_control))
            except ServiceError as error:
                raise ServiceError("tournament/bad_config", error.message) from error
        tournament_id = secrets.token_hex(8)
        first = pb.TournamentEvent(created=pb.TournamentCreated(settings=settings))
        await self._store.create(tournament_id, secrets.token_bytes(32), first.SerializeToString(), self._now_ms())
        metrics.tournament_event("created")
        log.info("tournament created", tournament_id=tournament_id, game=settings.game)
        return (await self.load(tournament_id)).summary()

    async def register(
        self, tournament_id: str, bot_name: str, bot_key: str, *, by_admin: bool = False
    ) -> pb.Tournament:
        """Register a bot (idempotent) while the tournament takes registrations (a ladder: while it runs,
        too; registering a paused bot again resumes it). The bot must exist (it is connected with its key,
        or its name is its key's for good) unless ``by_admin``, which registers a new name with
        ``bot_key``. Entering makes the name the key's for good (see :meth:`Bots.bind`): the tournament
        gives seats to that name. A full field is tournament/full (see :class:`FieldLimits`, and a
        ladder's ``max_bots_per_key``)."""
        await self._bots.authenticate(bot_name, bot_key, register=by_admin, by_admin=by_admin)
        owner = "" if by_admin else await self._owner_of(tournament_id)
        while True:
            state = await self.load(tournament_id)
            entered = state.bots.get(bot_name)
            if entered is not None and not entered.paused:
                return state.summary()
            if entered is None:
                self._check_entry(state, owner)
                await self._bots.check_plays(bot_name, state.settings.game)
                await self._bots.bind(bot_name)  # before the entry, so the name cannot lapse once entered
            event = pb.TournamentEvent(bot_registered=pb.BotRegistered(bot_name=bot_name, owner=owner))
            if await self.append(tournament_id, event, state.version):
                if entered is not None:
                    log.info("bot resumed", tournament_id=tournament_id, bot=bot_name)
                return (await self.load(tournament_id)).summary()

    def _check_entry(self, state: TournamentState, owner: str) -> None:
        """Raise unless ``state`` takes one more bot registered by ``owner``."""
        open_while_running = state.is_ladder and state.status == pb.TOURNAMENT_STATUS_RUNNING
        if state.status != pb.TOURNAMENT_STATUS_REGISTERING and not open_while_running:
            raise ServiceError("tournament/started", "the tournament has started; bots can no longer join")
        self._limits.check_room(state.settings, len(state.bots))
        most = state.settings.max_bots_per_key
        if owner and most and state.owned_by(owner) >= most:
            raise ServiceError(
                "tournament/full",
                f"your API key has registered {most} bots in this tournament, the most one key may "
                "(its max_bots_per_key); enter another bot with another key, or leave it to the admin",
            )

    async def _owner_of(self, tournament_id: str) -> str:
        """The caller's owner digest in this tournament (see BotRegistered.owner): an HMAC of its API key
        under the tournament's secret; empty without an API key."""
        key = CALLER_KEY.get()
        if not key:
            return ""
        secret = await self._store.secret(tournament_id)
        if not secret:
            raise _not_found(tournament_id)
        return hmac.new(secret, b"owner:" + key.encode(), hashlib.sha256).hexdigest()[:16]

    async def start(self, tournament_id: str) -> pb.Tournament:
        """Start the tournament: its first round is scheduled by the scheduler."""
        state = await self.load(tournament_id)
        if state.status != pb.TOURNAMENT_STATUS_REGISTERING:
            raise ServiceError("tournament/started", "the tournament has already started")
        size = state.settings.table_size
        if state.is_ladder:  # it seats the bots that are there, and those that come later
            if not await self._append_many(
                tournament_id, [pb.TournamentEvent(started=pb.TournamentStarted())], state.version
            ):
                raise ServiceError("tournament/started", "the ladder changed while starting; look at it again")
            log.info("ladder started", tournament_id=tournament_id, bots=len(state.bots))
            await self._claim(tournament_id)
            return (await self.load(tournament_id)).summary()
        if len(state.bots) < size:
            raise ServiceError(
                "tournament/too_few_bots", f"a table needs {size} bots and only {len(state.bots)} are registered"
            )
        if state.settings.format == pb.TOURNAMENT_FORMAT_SWISS and len(state.bots) % size:
            raise ServiceError(
                "tournament/too_few_bots", f"a Swiss tournament needs a multiple of {size} bots, not {len(state.bots)}"
            )
        events = [
            pb.TournamentEvent(started=pb.TournamentStarted()),
            pb.TournamentEvent(round_started=pb.RoundStarted(round=1)),
        ]
        if not await self._append_many(tournament_id, events, state.version):
            raise ServiceError("tournament/started", "the tournament changed while starting; look at it again")
        log.info("tournament started", tournament_id=tournament_id, bots=len(state.bots))
        await self._claim(tournament_id)
        return (await self.load(tournament_id)).summary()

    async def append(self, tournament_id: str, event: pb.TournamentEvent, expected_version: int) -> bool:
        """Append one event at ``expected_version``; False if the log has moved on. A step of the scheduler
        goes with its :func:`event_id`, so sending it again (after a lost reply) appends nothing twice: True
        if it is in the log, False if another version of that step is."""
        return await self._append_many(tournament_id, [event], expected_version, event_id(event))

    async def _append_many(
        self, tournament_id: str, events: list[pb.TournamentEvent], expected: int, step: str = ""
    ) -> bool:
        data = [e.SerializeToString() for e in events]
        known = self._states.get(tournament_id)
        try:
            appended = await self._store.append(
                tournament_id,
                data,
                expected_version=expected,
                now_ms=self._now_ms(),
                event_id=step,
                final=is_final(events[-1]),
                expected_last=known.last_digest if known is not None and known.version == expected else "",
            )
        except (VersionConflictError, CommandIdReusedError):
            # The log is not what this process decided on: it moved on, or Redis lost events this
            # process had cached (a rollback). Fold it afresh at the next load rather than trust the cache.
            self._states.pop(tournament_id, None)
            return False
        if not appended.duplicate:
            for event in events:
                metrics.tournament_event(str(event.WhichOneof("kind")))
        return True

    async def aclose(self) -> None:
        """Release the store's live reader (once the streams are over)."""
        await self._store.close()

    # --- running the schedulers -------------------------------------------------------------------

    async def run(self, poll_seconds: float = 1.0) -> None:
        """Run the scheduler of every running tournament this process can lease, until cancelled."""
        try:
            while not self._closed:
                with contextlib.suppress(Exception):
                    for tournament_id in await self._store.ids():
                        if tournament_id not in self._done and tournament_id not in self._runners:
                            await self._claim(tournament_id)
                await asyncio.sleep(poll_seconds)
        finally:
            for task in list(self._runners.values()):
                task.cancel()
            for tournament_id in list(self._runners):
                with contextlib.suppress(Exception):
                    await self._store.release(tournament_id, self._owner)

    async def _claim(self, tournament_id: str) -> None:
        if tournament_id in self._runners:
            return
        state = await self.load(tournament_id)
        if state.status == pb.TOURNAMENT_STATUS_FINISHED:
            self._done.add(tournament_id)
            return
        if state.status != pb.TOURNAMENT_STATUS_RUNNING:
            return
        if not await self._store.lease(tournament_id, self._owner, _LEASE_MS):
            return
        secret = await self._store.secret(tournament_id)
        runner = Runner(tournament_id, secret, self._games, self._bots, self._clocks, self.load, self.append)
        task = asyncio.create_task(self._hold(tournament_id, runner))
        self._runners[tournament_id] = task
        metrics.TOURNAMENTS_SCHEDULED.inc()
        task.add_done_callback(lambda _: self._runner_done(tournament_id))

    def _runner_done(self, tournament_id: str) -> None:
        self._runners.pop(tournament_id, None)
        metrics.TOURNAMENTS_SCHEDULED.dec()

    async def _hold(self, tournament_id: str, runner: Runner) -> None:
        """Run ``runner`` while renewing the lease; stop if the lease is lost."""
        work = asyncio.create_task(runner.run())
        try:
            while not work.done():
                await asyncio.wait({work}, timeout=_LEASE_MS / 3000)
                if not work.done() and not await self._store.lease(tournament_id, self._owner, _LEASE_MS):
                    log.warning("tournament lease lost", tournament_id=tournament_id)
                    work.cancel()
            if work.exception() is None:
                self._done.add(tournament_id)
        except asyncio.CancelledError:
            work.cancel()
            raise
        finally:
            if not work.done():
                work.cancel()
            if not work.cancelled() and work.done() and work.exception() is not None:
                log.error("tournament scheduler failed", tournament_id=tournament_id, error=loggable(work.exception()))  # type: ignore[arg-type]  # a done task's exception() is an exception here, never None


def _with_rules(settings: pb.TournamentSettings, rules_version: str) -> pb.TournamentSettings:
    """A copy of ``settings`` that names ``rules_version``."""
    copy = pb.TournamentSettings()
    copy.CopyFrom(settings)
    copy.rules_version = rules_version
    return copy


def _validate(settings: pb.TournamentSettings, game: AnyGame) -> None:
    if not 1 <= len(settings.name.strip()) <= 64:
        raise ServiceError("tournament/bad_config", "name must be 1 to 64 characters")
    try:
        game.spec.config(settings.table_size, dict(settings.options))
    except GameError as error:
        raise from_game_error(error) from error
    if settings.format == pb.TOURNAMENT_FORMAT_UNSPECIFIED:
        raise ServiceError("tournament/bad_config", "format must be TOURNAMENT_FORMAT_ROUND_ROBIN, _SWISS or _LADDER")
    if settings.format == pb.TOURNAMENT_FORMAT_LADDER:
        _validate_ladder(settings, game)
    elif not 1 <= settings.rounds <= 100:
        raise ServiceError("tournament/bad_config", f"rounds must be 1 to 100, not {settings.rounds}")
    elif any(getattr(settings, name) for name in _LADDER_ONLY):
        raise ServiceError("tournament/bad_config", f"{', '.join(_LADDER_ONLY)} are a ladder's settings only")
    if not 0 <= settings.max_parallel_games <= 256:
        raise ServiceError("tournament/bad_config", "max_parallel_games must be 0 (default 16) to 256")
    if settings.HasField("time_control"):
        try:
            TimeControl.from_proto(settings.time_control)
        except ServiceError as error:
            raise ServiceError("tournament/bad_config", error.message) from error


#: The settings only a ladder has.
_LADDER_ONLY = ("min_table_size", "max_games_per_bot", "max_bots_per_key", "pause_after_timeouts")


def _validate_ladder(settings: pb.TournamentSettings, game: AnyGame) -> None:
    """A ladder's own settings: no rounds, a table range within the game's seats, a cap per bot."""
    if settings.rounds:
        raise ServiceError("tournament/bad_config", f"a ladder has no rounds: give rounds 0, not {settings.rounds}")
    smallest = settings.min_table_size or settings.table_size
    if not 2 <= smallest <= settings.table_size:
        raise ServiceError(
            "tournament/bad_config",
            f"min_table_size must be 2 to table_size ({settings.table_size}), or 0 for table_size; not {smallest}",
        )
    try:
        game.spec.config(smallest, dict(settings.options))
    except GameError as error:
        raise from_game_error(error) from error
    if not 0 <= settings.max_games_per_bot <= 16:
        raise ServiceError("tournament/bad_config", "max_games_per_bot must be 0 (default 1) to 16")
    if not 0 <= settings.max_bots_per_key <= 10_000:
        raise ServiceError("tournament/bad_config", "max_bots_per_key must be 0 (no limit) to 10000")
    if not 0 <= settings.pause_after_timeouts <= 100:
        raise ServiceError("tournament/bad_config", "pause_after_timeouts must be 0 (default 3) to 100")


def _not_found(tournament_id: str) -> ServiceError:
    return ServiceError("tournament/not_found", f"there is no tournament {tournament_id[:64]!r}")
