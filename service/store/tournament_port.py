"""The tournament store port: each tournament's event log, kept and tailed exactly like a game's (appends
with an expected version and an optional idempotent event id, reads by version range, live tails through
the process's shared reader), plus what only tournaments have: the secret (the source of its deals' seeds
and seat tokens), an index of tournaments, and the lease that says which server process runs its scheduler.
Every adapter passes ``tests/store/test_tournament_store_contract.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from service.store.port import AppendResult, StoredEvent

__all__ = ["TournamentStore"]


class TournamentStore(Protocol):
    """Tournament logs, secrets, index and scheduler leases."""

    async def create(self, tournament_id: str, secret: bytes, first: bytes, now_ms: int) -> None:
        """Start a tournament's log with its first event (version 1, stamped ``now_ms``) and its secret in
        one step, then index it. Raises :class:`~service.store.port.VersionConflictError` if the id has a
        log already."""
        ...

    async def secret(self, tournament_id: str) -> bytes:
        """The tournament's secret (empty if there is no such tournament)."""
        ...

    async def append(
        self,
        tournament_id: str,
        events: Sequence[bytes],
        *,
        expected_version: int,
        now_ms: int,
        event_id: str = "",
        final: bool = False,
        expected_last: str = "",
    ) -> AppendResult:
        """Append ``events`` (stamped ``now_ms``) atomically if the log is at ``expected_version``, else
        raise :class:`~service.store.port.VersionConflictError` and append nothing. With ``expected_last``
        (:func:`~service.store.port.event_digest` of the event at ``expected_version``), a log whose event
        there is another one (Redis lost writes, and another process appended since) is a conflict too.

        ``event_id`` (optional) makes the append idempotent: an id seen before with the same events
        returns the first append's versions with ``duplicate=True`` and appends nothing, whatever the log's
        version now; with other events it raises :class:`~service.store.port.CommandIdReusedError`.
        ``final`` marks the last event as the log's last: tails end after it."""
        ...

    async def read(self, tournament_id: str, from_version: int = 1) -> list[StoredEvent]:
        """Every event with version >= ``from_version``, in order (empty for an unknown tournament)."""
        ...

    def tail(self, tournament_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        """Every event with version >= ``from_version``, then each new one as soon as it is appended (by
        any process sharing the store), with no gap and no duplicate and without polling; ends after an
        event appended as ``final``."""
        ...

    async def ids(self) -> list[str]:
        """Every tournament id, newest first."""
        ...

    async def lease(self, tournament_id: str, owner: str, ms: int) -> bool:
        """Take or renew the scheduler lease for ``ms``; False if another owner holds it."""
        ...

    async def release(self, tournament_id: str, owner: str) -> None:
        """Give up the lease if ``owner`` holds it."""
        ...

    async def close(self) -> None:
        """Stop the live tails' shared reader (the connection belongs to whoever opened it)."""
        ...
