"""The tournament store port: each tournament's event log (optimistic appends, read, live tail), its secret
(the source of its deals' seeds), an index of tournaments, and the lease that says which server process
runs its scheduler. Every adapter passes ``tests/store/test_tournament_store_contract.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

__all__ = ["TournamentStore"]


class TournamentStore(Protocol):
    """Tournament logs, secrets, index and scheduler leases."""

    async def create(self, tournament_id: str, secret: bytes, first: bytes, now_ms: int) -> None:
        """Start a tournament's log with its first event, keep its secret, and index it."""
        ...

    async def secret(self, tournament_id: str) -> bytes:
        """The tournament's secret (empty if there is no such tournament)."""
        ...

    async def append(self, tournament_id: str, events: Sequence[bytes], *, expected_version: int, now_ms: int) -> int:
        """Append if the log is at ``expected_version``; returns the new version. Raises
        :class:`~service.store.port.VersionConflictError` otherwise."""
        ...

    async def read(self, tournament_id: str, from_version: int = 1) -> list[tuple[int, int, bytes]]:
        """Every event from ``from_version`` on as (version, time ms, data)."""
        ...

    def tail(self, tournament_id: str, from_version: int) -> AsyncIterator[tuple[int, int, bytes]]:
        """Events from ``from_version`` on, then each new one as it is appended (runs until closed)."""
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
