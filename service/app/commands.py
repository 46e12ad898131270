"""The command use cases (a seat's command, the server's default move for a seat whose time ran out, a
house bot's move) and their unit of work: decide on the latest state, append atomically, answer retries
with the first outcome, then tell the observers.

:class:`CommandHandler` reads top to bottom: authorize the seat (the game records), then, in the state
cache's unit of work on the game (this process's lock of the game and its latest state), decide with the
engine, stamp, append to the event log and keep the state reached; then reply and tell the observers. A
SubmitCommand enters this module once, and each module it uses once except the clock keeper's, which
measures the think time before the append and is told of the change after it (``bench/command_walk.py``).

The flow, for a seat already authorized: (0) a command that cannot be understood is refused as malformed
whatever the game's version; (1) a stale ``expected_version`` is refused; (2) the engine
decides on this process's cached state; a rule error is final only if the cache was current (otherwise
the store moved on through another server: catch up and decide again); (3) the events are appended with
the version they were decided on, so a concurrent append by another server makes this one fail and be
decided again; (4) a command id seen before returns its first outcome instead of an error. The events are
stamped with the application's clock and the seat's think time, measured by the clocks
(:class:`~service.app.time_control.ThinkTimes`) just before the append.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from engines.contract import AnyGame, advance
from engines.envelope import unwrap_command, wrap_command
from engines.errors import GameError
from parlour.v1 import game_pb2, game_service_pb2
from service import logs, metrics
from service.app.errors import ServiceError, from_game_error
from service.app.events import client_event, live_events, sent_whole
from service.app.fanout import CommandsFirst
from service.app.game_records import GameRecords
from service.app.meta_fields import pending_meta, result_meta
from service.app.observers import GameChange, Observers
from service.app.records import GameRecord
from service.app.states import Reached, StateCache, Work
from service.app.time_control import ThinkTimes
from service.store.port import CommandIdReusedError, EventLog, NewCommand, NewEvent, StoredEvent, VersionConflictError

__all__ = ["CommandHandler", "Outcome", "Stamps", "Submission", "command_digest"]

log = structlog.get_logger("parlour.games")

_MAX_ATTEMPTS = 8


@dataclass(frozen=True)
class Submission:
    """A command to apply for an authorized seat: the envelope, the game's own command inside it, and the
    client's expected version and command id."""

    record: GameRecord
    #: The engine of the game's rules version (``record.game``, looked up once).
    game: AnyGame
    seat: int
    command: game_pb2.Command
    inner: Any
    expected_version: int | None
    command_id: str
    #: Played by the server for the seat because its clock ran out (recorded with the events).
    timed_out: bool = False

    @property
    def digest(self) -> str:
        """What makes two commands with the same id the same command: seat and serialized command."""
        return command_digest(self.seat, self.command)


def command_digest(seat: int, command: game_pb2.Command) -> str:
    """The digest stored with a command id: SHA-256 of the seat and the deterministic serialization."""
    body = command.SerializeToString(deterministic=True)
    return hashlib.sha256(f"{seat}:".encode() + body).hexdigest()


@dataclass(frozen=True)
class Outcome:
    """The reply to a submission, and whether this command ended the game. A command applied now (not a
    retry) also carries the state it led to and its events as stored, for the observers."""

    response: game_service_pb2.SubmitCommandResponse
    finished: bool = False
    state: Any = None
    stored: tuple[StoredEvent, ...] = ()


@dataclass(frozen=True)
class Stamps:
    """What stamps a command's events: the application's clock (ms since the epoch) and the clocks'
    measure of think time."""

    now_ms: Callable[[], int]
    think: ThinkTimes


class CommandHandler:
    """The command use cases over the game records, the state cache and the event log (see the module
    docstring)."""

    def __init__(  # noqa: PLR0917 - the unit of work's parts, wired by Games only
        self,
        store: EventLog,
        records: GameRecords,
        states: StateCache,
        stamps: Stamps,
        observers: Observers,
        commands_first: CommandsFirst,
    ) -> None:
        """``commands_first`` is told of every command being applied (the live fan-out gives way to them)."""
        self._store = store
        self._records = records
        self._states = states
        self._stamps = stamps
        self._observers = observers
        self._commands_first = commands_first

    async def submit(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        command: game_pb2.Command,
        *,
        expected_version: int | None,
        command_id: str,
    ) -> game_service_pb2.SubmitCommandResponse:
        """Decide and append a seat's command; reply only once its events are stored. Safe to retry.
        Counted and timed in the metrics by game and result."""
        with metrics.command() as outcome, self._commands_first.command():
            if not 1 <= len(command_id) <= 128:
                raise ServiceError(
                    "request/invalid", "command_id must be 1 to 128 characters; pick a fresh one per command"
                )
            record = await self._records.authorized(game_id, seat, token, acting=True)
            game = record.game
            outcome.game = game.spec.name
            response = await self._apply(
                Submission(record, game, seat, command, _inner(game, command), expected_version, command_id)
            )
            outcome.result = "duplicate" if response.duplicate else "applied"
            return response

    async def play_default(
        self, game_id: str, seat: int, *, expected_version: int, command_id: str
    ) -> game_service_pb2.SubmitCommandResponse:
        """Play the game's default command for ``seat`` with the server's authority (no token), as when
        the seat's clock ran out (its events are recorded as timed out). Applied only at ``expected_version``
        (game/stale_version otherwise), and once per ``command_id`` however often it is retried, by however
        many servers."""
        record = await self._records.get(game_id)
        game = record.game
        loaded = await self._states.get(game_id, game, at_least=expected_version)
        if loaded.version != expected_version:
            prior = await prior_outcome(self._store, record, seat, command_id)
            if prior is not None:
                return prior.response
            raise ServiceError("game/stale_version", f"the game is at version {loaded.version}, not {expected_version}")
        if game.is_over(loaded.state) or seat not in game.pending(loaded.state):
            raise ServiceError("command/not_your_turn", f"seat {seat} need not act at version {expected_version}")
        inner = game.default_command(loaded.state, seat, nonce=str(expected_version))
        command = wrap_command(game, inner)
        submission = Submission(record, game, seat, command, inner, expected_version, command_id, timed_out=True)
        return await self._apply(submission)

    async def play_for_house(
        self, game_id: str, seat: int, command: game_pb2.Command, *, expected_version: int, command_id: str
    ) -> game_service_pb2.SubmitCommandResponse:
        """Submit ``command`` for a seat the server plays itself (a house bot), with the server's authority
        (no token). request/invalid if the seat is not a house bot's; otherwise as :meth:`submit`."""
        record = await self._records.get(game_id)
        if seat not in record.house_bots:
            raise ServiceError("request/invalid", f"seat {seat} of game {game_id} is not played by the server")
        game = record.game
        return await self._apply(
            Submission(record, game, seat, command, _inner(game, command), expected_version, command_id)
        )

    async def _apply(self, submission: Submission) -> game_service_pb2.SubmitCommandResponse:
        """Apply a submission in the state cache's unit of work on the game, then tell the observers."""
        game_id, seat, command_id = submission.record.game_id, submission.seat, submission.command_id
        async with self._states.work(game_id, submission.game) as work:
            outcome = await apply_command(self._store, self._states, work, submission, self._stamps)
        if outcome.finished:
            self._records.forget(game_id)
        response = outcome.response
        if logs.enabled(logging.INFO):
            log.info(
                "command applied",
                game_id=game_id,
                seat=seat,
                command_id=command_id,
                kind=submission.inner.WhichOneof("kind"),
                version=response.version,
                duplicate=response.duplicate,
            )
        if not response.duplicate:
            record, game, version = submission.record, submission.game, response.version
            await self._observers.tell(GameChange(game_id, record, game, outcome.state, version, outcome.stored))
        return response


def _inner(game: AnyGame, command: game_pb2.Command) -> Any:
    """The game's own command inside ``command``'s envelope; command/* when it holds none of this game's."""
    try:
        return unwrap_command(game, command)
    except GameError as error:
        raise from_game_error(error) from error


async def apply_command(
    store: EventLog, states: StateCache, work: Work, submission: Submission, stamps: Stamps
) -> Outcome:
    """Apply ``submission`` in ``work`` (see the module docstring); raises ServiceError when it is refused."""
    for _ in range(_MAX_ATTEMPTS):
        try:
            return await _attempt(store, states, work, submission, stamps)
        except VersionConflictError:
            await states.catch_up(submission.record.game_id, work.loaded)
    raise ServiceError("game/stale_version", "the game kept changing while deciding your command; send it again")


async def _attempt(store: EventLog, states: StateCache, work: Work, sub: Submission, stamps: Stamps) -> Outcome:
    game, game_id, loaded = sub.game, sub.record.game_id, work.loaded
    try:
        game.check_command(loaded.state, sub.inner)  # malformed before anything else, a stale version included
    except GameError as error:
        raise from_game_error(error) from error
    if sub.expected_version is not None and sub.expected_version != loaded.version:
        await states.catch_up(game_id, loaded)
        if sub.expected_version != loaded.version:
            return await _duplicate_or(store, sub, _stale(sub.expected_version, loaded.version))
    try:
        events, state = advance(game, loaded.state, sub.seat, sub.inner)
    except GameError as error:
        if await store.version(game_id) != loaded.version:  # decided on a state the log has passed (or lost)
            raise VersionConflictError(loaded.version) from error
        return await _duplicate_or(store, sub, from_game_error(error))
    result = game.result(state)
    payloads = [e.SerializeToString() for e in events]
    command = sub.command.SerializeToString()
    version, last_digest, previous_ms = loaded.version, loaded.last_digest, loaded.last_ms  # as decided on
    now = stamps.now_ms()
    think = await stamps.think.think_ms(game_id, sub.seat, version, now, previous_ms)
    try:
        appended = await store.append(
            game_id,
            NewCommand(
                [NewEvent(data) for data in payloads],
                expected_version=version,
                command_id=sub.command_id,
                digest=sub.digest,
                seat=sub.seat,
                command=command,
                meta=result_meta(result) if result else pending_meta(game.pending(state)),
                final=result is not None,
                recorded_at_ms=now,
                timed_out=sub.timed_out,
                think_ms=think,
                expected_last=last_digest,
            ),
        )
    except CommandIdReusedError as error:
        raise _id_reused(sub.command_id) from error
    if appended.duplicate:
        return await _first_outcome(store, sub, appended.first, appended.last)
    work.reached = Reached(state, appended.last, payloads[-1] if payloads else b"", now)
    last = len(payloads) - 1
    stored = tuple(
        StoredEvent(
            appended.first + index,
            data,
            sub.command_id,
            sub.seat,
            now,
            command=command if index == 0 else b"",
            final=result is not None and index == last,
            think_ms=think,
            timed_out=sub.timed_out,
        )
        for index, data in enumerate(payloads)
    )
    response = game_service_pb2.SubmitCommandResponse(
        version=appended.last,
        events=live_events(sub.record, game, events, stored, sub.seat),
        pending_seats=sorted(game.pending(state)),
        status=game_pb2.GAME_STATUS_FINISHED if result else game_pb2.GAME_STATUS_RUNNING,
    )
    return Outcome(response, finished=result is not None, state=state, stored=stored)


async def _duplicate_or(store: EventLog, sub: Submission, error: ServiceError) -> Outcome:
    """A retry of an applied command gets its first outcome; anything else gets ``error``."""
    prior = await store.find_command(sub.record.game_id, sub.command_id)
    if prior is None:
        raise error
    digest, first, last = prior
    if digest != sub.digest:
        raise _id_reused(sub.command_id)
    return await _first_outcome(store, sub, first, last)


async def _first_outcome(store: EventLog, sub: Submission, first: int, last: int) -> Outcome:
    return await _stored_outcome(store, sub.record, sub.seat, first, last)


async def _stored_outcome(store: EventLog, record: GameRecord, seat: int, first: int, last: int) -> Outcome:
    stored = await store.read(record.game_id, first, last - first + 1)
    game = record.game
    events = [client_event(game, e, seat, finished=sent_whole(record, e)) for e in stored]
    return Outcome(game_service_pb2.SubmitCommandResponse(version=last, events=events, duplicate=True))


async def prior_outcome(store: EventLog, record: GameRecord, seat: int, command_id: str) -> Outcome | None:
    """The first outcome of an already applied command id, or None if the id is new."""
    prior = await store.find_command(record.game_id, command_id)
    if prior is None:
        return None
    return await _stored_outcome(store, record, seat, prior[1], prior[2])


def _stale(expected: int, current: int) -> ServiceError:
    return ServiceError(
        "game/stale_version", f"the game is at version {current}, not {expected}: get the view again and decide on it"
    )


def _id_reused(command_id: str) -> ServiceError:
    return ServiceError(
        "command/id_reused", f"command id {command_id!r} was already used for another command; use a new id"
    )
