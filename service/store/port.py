"""The event store port: what the application needs from a log of games, whatever holds it."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "AppendResult",
    "CommandIdReusedError",
    "EventLog",
    "EventStore",
    "GameIndex",
    "GameMetadata",
    "GamePage",
    "LogDivergedError",
    "LoggedGames",
    "MetaClaim",
    "NewCommand",
    "NewEvent",
    "Snapshots",
    "SnapshottedLog",
    "StoreError",
    "StoredEvent",
    "VersionConflictError",
    "event_digest",
]


@dataclass(frozen=True)
class NewEvent:
    """An event to append: the serialized game event."""

    data: bytes


@dataclass(frozen=True)
class StoredEvent:
    """An event as stored: its 1-based version, payload, the command that caused it and when.

    ``command`` (the serialized command) is set on the first event of each command only. ``final`` marks the
    last event of a finished game.
    """

    version: int
    data: bytes
    command_id: str
    seat: int | None
    recorded_at_ms: int
    command: bytes = b""
    final: bool = False
    #: The time the seat took for the command, in ms (0 for setup events); the same on each of its events.
    think_ms: int = 0
    #: The server played this command because the seat's clock ran out (or the seat was dropped).
    timed_out: bool = False


@dataclass(frozen=True)
class NewCommand:
    """One command's events to append (see :meth:`EventLog.append`): what the append is checked against
    (the version and last event it was decided on, its command id and digest) and what its events record
    (the seat, the command, the time, the think time, whether the server played it), with the metadata
    fields set in the same step."""

    events: Sequence[NewEvent]
    expected_version: int
    command_id: str
    digest: str
    seat: int | None
    command: bytes = b""
    meta: Mapping[str, str] | None = None
    final: bool = False
    recorded_at_ms: int | None = None
    timed_out: bool = False
    think_ms: int | None = None
    expected_last: str = ""


@dataclass(frozen=True)
class AppendResult:
    """Versions ``first..last`` now hold the command's events. ``duplicate``: a retry; nothing was added."""

    first: int
    last: int
    duplicate: bool = False
    recorded_at_ms: int = 0
    #: The think time recorded with the events (the ``think_ms`` given; see StoredEvent.think_ms).
    think_ms: int = 0


@dataclass(frozen=True)
class GamePage:
    """A page of game metadata records, newest first, and the cursor of the next page ("" at the end)."""

    games: list[dict[str, str]]
    next_cursor: str


def event_digest(data: bytes) -> str:
    """The digest that identifies an event's payload for ``append(expected_last=...)`` (SHA-1, hex)."""
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class MetaClaim:
    """What :meth:`EventStore.claim_meta` did: whether it set the field, and the game's metadata just after
    (None when there is no such game)."""

    claimed: bool
    meta: dict[str, str] | None


class StoreError(Exception):
    """Base of the store's own errors."""


class VersionConflictError(StoreError):
    """The log is no longer at the expected version (another command was appended first)."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the log is at version {current}")
        self.current = current


class LogDivergedError(VersionConflictError):
    """The log is at the expected version but its last event is not the one the caller decided on: the
    store lost acknowledged events and others were written since. The caller's state must be reloaded."""


class CommandIdReusedError(StoreError):
    """The command id was already used for a different command in this game."""


class EventLog(Protocol):
    """The per-game append-only logs: optimistic concurrency, idempotent commands, live tails."""

    async def create(self, game_id: str, meta: Mapping[str, str], events: Sequence[NewEvent]) -> dict[str, str]:
        """Create a game with its metadata and setup events (versions 1..n); returns the metadata as stored
        (what :meth:`meta` would read now). Raises StoreError if the id is taken. ``meta`` may give
        ``created_ms`` (kept for imported games); otherwise it is now."""
        ...

    async def append(self, game_id: str, command: NewCommand) -> AppendResult:
        """Atomically append ``command``'s events if the log is at its ``expected_version`` and its
        ``command_id`` is new. With ``expected_last`` (:func:`event_digest` of the event at
        ``expected_version``) the log's event there must also be that one, else LogDivergedError (the
        history the command was decided on is gone). The events are stamped with the store's clock, or with
        ``recorded_at_ms``, and record ``think_ms`` (StoredEvent.think_ms; None: 0) and ``timed_out``. The
        store measures nothing: the caller's clocks measure think time, and an import keeps the times and
        think times its export recorded.

        A command id seen before with the same ``digest`` returns its first result with ``duplicate=True``
        and appends nothing; with another digest raises CommandIdReusedError. A version mismatch raises
        VersionConflictError. ``meta`` fields are set in the same step.
        """
        ...

    async def read(self, game_id: str, from_version: int, limit: int) -> list[StoredEvent]:
        """Up to ``limit`` events with version >= ``from_version``, in order."""
        ...

    def tail(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        """Every event with version >= ``from_version``, then each new one as it is appended, with no gap
        and no duplicate; ends after an event marked ``final``."""
        ...

    def tail_commands(self, game_id: str, from_version: int) -> AsyncIterator[list[StoredEvent]]:
        """As :meth:`tail`, the events of each command (and of the setup) together, one list per command, in
        order (the first list may start inside a command when ``from_version`` does)."""
        ...

    async def find_command(self, game_id: str, command_id: str) -> tuple[str, int, int] | None:
        """The (digest, first, last) recorded for a command id in this game, or None if it is new."""
        ...

    async def version(self, game_id: str) -> int:
        """The game's current version (0 if there is no such game)."""
        ...


class GameMetadata(Protocol):
    """Each game's metadata fields (its record: seats, status, results...), set atomically where it matters."""

    async def meta(self, game_id: str) -> dict[str, str] | None:
        """The game's metadata (``version`` included), or None if there is no such game."""
        ...

    async def set_meta_if_absent(self, game_id: str, field: str, value: str) -> bool:
        """Set one metadata field unless it exists; True if it was set (used to claim seats). A game that
        does not exist (or no longer does) is not created: False."""
        ...

    async def claim_meta(
        self, game_id: str, field: str, value: str, *, unless: tuple[str, str] | None = None
    ) -> MetaClaim:
        """Set one metadata field unless it exists or, when ``unless`` is given, the field ``unless[0]``
        holds ``unless[1]`` (a seat is not claimed once the game is over), in one atomic step that also
        reads the metadata as it is afterwards. A game that does not exist (or no longer does) is not created."""
        ...

    async def replace_meta(self, game_id: str, field: str, value: str) -> bool:
        """Overwrite one metadata field that exists; True if it existed (used to revoke seat tokens)."""
        ...


class Snapshots(Protocol):
    """Folded states kept beside a game's log, so a load need not fold it from the start."""

    async def save_snapshot(self, game_id: str, version: int, tag: str, blob: bytes) -> None:
        """Keep ``blob`` as the state at ``version`` (``tag`` names its format). Earlier snapshots stay, so a
        replay can start near any version."""
        ...

    async def load_snapshot(self, game_id: str, at_most: int | None = None) -> tuple[int, str, bytes] | None:
        """The newest snapshot as (version, tag, blob), or the newest at or before ``at_most``; None if
        there is none."""
        ...


class GameIndex(Protocol):
    """The games in order of creation, by game name and status."""

    async def list_games(self, *, game: str, status: str, limit: int, cursor: str) -> GamePage:
        """Metadata of games, newest first, filtered by game name and status (empty: any)."""
        ...

    async def count_games(self, status: str) -> int:
        """How many games have ``status`` (``running``, ``finished``)."""
        ...


class LoggedGames(EventLog, GameMetadata, Protocol):
    """Games' logs with their metadata (what exports, imports and clocks read)."""


class SnapshottedLog(EventLog, Snapshots, Protocol):
    """Games' logs with their snapshots (what the state cache loads states from)."""


class EventStore(EventLog, GameMetadata, Snapshots, GameIndex, Protocol):
    """All of a game store: its logs, metadata, snapshots and index (an application part asks for the
    small ports it uses). Every backend passes ``tests/store/test_store_contract.py``."""

    async def delete(self, game_id: str) -> None:
        """Delete the game (its log, metadata, command ids, snapshots and clock) and take it out of every
        index. Deleting a game that does not exist does nothing."""
        ...

    async def close(self) -> None:
        """Release connections and background readers."""
        ...
