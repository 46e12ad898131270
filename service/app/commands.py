"""Applying one command: decide on the latest state, append atomically, and answer retries with the
first outcome.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.contract import advance
from engines.errors import GameError
from parlour.v1 import game_pb2, game_service_pb2
from service.app.errors import ServiceError, from_game_error
from service.app.events import client_event, live_event, sent_whole
from service.app.records import GameRecord, pending_meta, result_meta
from service.app.states import LoadedGame, StateCache
from service.app.time_control import ThinkTimes
from service.store.port import CommandIdReusedError, EventLog, NewEvent, StoredEvent, VersionConflictError

__all__ = ["Outcome", "Stamps", "Submission", "apply_command", "command_digest", "prior_outcome"]

_MAX_ATTEMPTS = 8


@dataclass(frozen=True)
class Submission:
    """A command to apply for an authorized seat: the envelope, the game's own command inside it, and the
    client's expected version and command id."""

    record: GameRecord
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


async def apply_command(store: EventLog, states: StateCache, submission: Submission, stamps: Stamps) -> Outcome:
    """Apply ``submission`` (see the module docstring); raises ServiceError when it is refused."""
    game_id = submission.record.game_id
    loaded = await states.get(game_id, submission.record.game)
    for _ in range(_MAX_ATTEMPTS):
        try:
            return await _attempt(store, states, loaded, submission, stamps)
        except VersionConflictError:
            await states.catch_up(game_id, loaded)
    raise ServiceError("game/stale_version", "the game kept changing while deciding your command; send it again")


async def _attempt(store: EventLog, states: StateCache, loaded: LoadedGame, sub: Submission, stamps: Stamps) -> Outcome:
    game, game_id = sub.record.game, sub.record.game_id
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
        )
    except CommandIdReusedError as error:
        raise _id_reused(sub.command_id) from error
    if appended.duplicate:
        return await _first_outcome(store, sub, appended.first, appended.last)
    await states.advance(game_id, loaded, state, appended.last, payloads[-1] if payloads else b"", recorded_ms=now)
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
    record = sub.record
    client_events = [
        live_event(game, e, s, sub.seat, finished=sent_whole(record, s)) for e, s in zip(events, stored, strict=True)
    ]
    response = game_service_pb2.SubmitCommandResponse(
        version=appended.last,
        events=client_events,
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
    events = [client_event(record.game, e, seat, finished=sent_whole(record, e)) for e in stored]
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
