"""The stream ticket store port: short-lived, single-use secrets, each naming the seat it opens."""

from __future__ import annotations

from typing import Protocol

__all__ = ["TicketStore"]


class TicketStore(Protocol):
    """Where stream tickets are kept, by the hash of the ticket (never the ticket itself)."""

    async def put(self, game_id: str, ticket_hash: str, seat: int, ttl_ms: int) -> None:
        """Store a ticket for ``seat`` of the game that expires after ``ttl_ms``."""
        ...

    async def take(self, game_id: str, ticket_hash: str) -> int | None:
        """The seat of the ticket, removing it atomically (two takers never both get it); None if it is
        unknown, already taken or expired."""
        ...
