"""Stream tickets: how a browser opens a seat's event stream without putting the seat token in a URL.

A browser's EventSource cannot send an ``authorization`` header, and a token in a query string ends up in
server and proxy logs. Instead the page asks for a ticket with an ordinary authenticated call
(:meth:`StreamTickets.issue`) and opens the stream with it (:meth:`StreamTickets.watch`). A ticket is good
for one stream of one seat, for ``ttl_ms`` (30 seconds by default); a URL that leaks into a log is useless
by the time anyone reads it. Tickets live in Redis, so any server replica accepts one issued by another.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from parlour.v1 import game_service_pb2
from service.app.errors import ServiceError
from service.app.games import Games
from service.app.tokens import hash_token, new_token
from service.store.ticket_port import TicketStore

__all__ = ["StreamTickets"]


class StreamTickets:
    """Issues and redeems stream tickets for the games of one application."""

    def __init__(self, store: TicketStore, games: Games, now_ms: Callable[[], int], *, ttl_ms: int = 30_000) -> None:
        self._store = store
        self._games = games
        self._now_ms = now_ms
        self._ttl_ms = ttl_ms

    async def issue(self, game_id: str, seat: int, token: str | None) -> tuple[str, int]:
        """A new ticket for ``seat`` and when it expires (ms since the epoch); the token must be the seat's
        (game/not_found, auth/* otherwise)."""
        await self._games.check_token(game_id, seat, token)
        ticket = new_token()
        await self._store.put(game_id, hash_token(ticket), seat, self._ttl_ms)
        return ticket, self._now_ms() + self._ttl_ms

    async def watch(
        self, game_id: str, from_version: int, seat: int | None, ticket: str, *, by_command: bool = False
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """The seat's events from ``from_version`` on, as :meth:`Games.watch_replies`, opened with a ticket that is
        used up by this call. auth/bad_ticket if the ticket is unknown, used, expired or for another seat
        (or for no seat: a spectator needs no ticket)."""
        if seat is None:
            raise ServiceError("auth/bad_ticket", "a stream ticket opens a seat's stream: give the seat too")
        redeemed = await self._store.take(game_id, hash_token(ticket))
        if redeemed != seat:
            raise ServiceError(
                "auth/bad_ticket",
                "the stream ticket is unknown, used, expired or for another seat: ask CreateStreamTicket for a new one",
            )
        async for reply in self._games.watch_checked(game_id, from_version, seat, by_command=by_command):
            yield reply
