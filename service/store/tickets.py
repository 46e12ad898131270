"""Stream tickets on Redis: one key per ticket beside its game's log, with an expiry, taken at most once."""

from __future__ import annotations

import redis.asyncio as aioredis

from service.store.keys import Keys

__all__ = ["RedisTickets"]


class RedisTickets:
    """The :class:`~service.store.ticket_port.TicketStore` on Redis: one key per ticket, expiring by itself."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        self._redis = client
        self._keys = keys

    async def put(self, game_id: str, ticket_hash: str, seat: int, ttl_ms: int) -> None:
        """Store a ticket for ``seat`` of the game that expires after ``ttl_ms``."""
        await self._redis.set(self._keys.ticket(game_id, ticket_hash), str(seat), px=ttl_ms)

    async def take(self, game_id: str, ticket_hash: str) -> int | None:
        """The seat of the ticket, removing it (atomically, so two takers never both get it); None if it is
        unknown, already taken or expired."""
        value = await self._redis.getdel(self._keys.ticket(game_id, ticket_hash))
        return None if value is None else int(value)
