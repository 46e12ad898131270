"""Per-client quotas: rate limits on calls (creating games, claiming seats, any call) and the number of
open streams per client and per process.

A client is its API key when it sends one, otherwise its network address (see :class:`Client`). Rates are
moving windows kept in this process's memory (the ``limits`` library), so with several replicas a client
gets each replica's quota. Every refusal is ``limit/rate`` or ``limit/streams`` (RESOURCE_EXHAUSTED, HTTP
429) with a sentence naming the limit, the flag that sets it, and when to retry.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from service.app.errors import ServiceError

__all__ = ["STREAMING_CALLS", "Client", "LimitSettings", "Limits", "check_rate"]

#: Calls that hold a stream open (counted against the stream limits while they run).
STREAMING_CALLS = frozenset({"GameService.WatchGame", "TournamentService.WatchTournament", "BotService.Connect"})

#: The calls with a rate of their own, beside the rate of every call: (settings field, what is counted).
_OWN_RATES = {
    "GameService.CreateGame": ("rate_create_games", "games created"),
    "ReplayService.ImportGame": ("rate_create_games", "games created"),
    "GameService.ClaimSeat": ("rate_claim_seats", "seats claimed"),
    "TournamentService.RegisterBot": ("rate_joins", "bot registrations in tournaments and ladders"),
}


def check_rate(text: str, flag: str) -> RateLimitItem | None:
    """The rate ``text`` ("20/minute", "5 per second"; empty or "0": no limit). Raises ValueError
    naming ``flag`` when it is not a rate."""
    if text.strip() in ("", "0"):
        return None
    try:
        return parse(text)
    except ValueError as error:
        raise ValueError(f"{flag} must be a rate like 20/minute or 5/second, not {text!r}") from error


@dataclass(frozen=True)
class Client:
    """Who is calling: its address and its API key (as sent to the gate; the gate gives the quotas the
    key's verified name, which they follow instead of the address)."""

    address: str
    api_key: str = ""

    @property
    def key(self) -> str:
        """The identity quotas are counted under."""
        return "key:" + self.api_key if self.api_key else "ip:" + self.address

    @property
    def described(self) -> str:
        """The client in a sentence ("your API key" or "your address 1.2.3.4")."""
        return f"your API key {self.api_key!r}" if self.api_key else f"your address {self.address}"


@dataclass(frozen=True)
class LimitSettings:
    """The quotas (flags of ``parlour serve``; a rate of "" or "0" is no limit, a count of 0 too)."""

    #: Games created (CreateGame, ImportGame) per client.
    rate_create_games: str = "300/minute"
    #: Seats claimed per client.
    rate_claim_seats: str = "1200/minute"
    #: Bots registered in tournaments and ladders (RegisterBot, also when the bot is in already) per client.
    rate_joins: str = "120/minute"
    #: Calls of any kind per client.
    rate_calls: str = "1000/second"
    #: Streams (WatchGame, WatchTournament, bot connections) one client may hold open at once.
    max_streams_per_client: int = 32
    #: Streams this process holds open at once, over all clients.
    max_streams: int = 1000


class Limits:
    """The quotas of one server process."""

    def __init__(self, settings: LimitSettings | None = None) -> None:
        """Raises ValueError naming a rate that cannot be read."""
        self.settings = settings or LimitSettings()
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._rates = {
            name: check_rate(getattr(self.settings, name), _flag(name))
            for name in ("rate_create_games", "rate_claim_seats", "rate_joins", "rate_calls")
        }
        self._open: Counter[str] = Counter()
        self._total = 0

    @asynccontextmanager
    async def enter(self, call: str, client: Client) -> AsyncIterator[None]:
        """Admit one ``call`` by ``client`` (:meth:`admit`) and, for a streaming call, hold a stream slot
        while the block runs (:meth:`stream`)."""
        await self.admit(call, client)
        if call not in STREAMING_CALLS:
            yield
            return
        with self.stream(client):
            yield

    async def admit(self, call: str, client: Client) -> None:
        """Count one ``call`` ("GameService.CreateGame") by ``client``; raises limit/rate when over a rate."""
        own = _OWN_RATES.get(call)
        if own is not None:
            await self._hit(own[0], own[1], client)
        await self._hit("rate_calls", "calls", client)

    async def _hit(self, name: str, counted: str, client: Client) -> None:
        rate = self._rates[name]
        if rate is None or await self._limiter.hit(rate, name, client.key):
            return
        stats = await self._limiter.get_window_stats(rate, name, client.key)
        wait = max(1, math.ceil(stats.reset_time - time.time()))
        raise ServiceError(
            "limit/rate",
            f"too many {counted} from {client.described}: the limit is {rate.amount} per {_window(rate)} "
            f"({_flag(name)}); retry in {wait} s",
        )

    @contextmanager
    def stream(self, client: Client) -> Iterator[None]:
        """Hold one stream slot for ``client`` while the block runs; raises limit/streams when the client
        or the process already holds its maximum."""
        per_client, total = self.settings.max_streams_per_client, self.settings.max_streams
        if per_client and self._open[client.key] >= per_client:
            raise ServiceError(
                "limit/streams",
                f"{client.described} holds {per_client} open streams, the most one client may "
                "(--max-streams-per-client); close one and retry",
            )
        if total and self._total >= total:
            raise ServiceError(
                "limit/streams",
                f"this server holds {total} open streams, its maximum (--max-streams); retry in a minute or use "
                "another server",
            )
        self._open[client.key] += 1
        self._total += 1
        try:
            yield
        finally:
            self._total -= 1
            self._open[client.key] -= 1
            if not self._open[client.key]:
                del self._open[client.key]

    def open_streams(self) -> int:
        """How many streams this process holds open (for tests and metrics)."""
        return self._total


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _window(rate: RateLimitItem) -> str:
    unit = rate.GRANULARITY.name
    return unit if rate.multiples == 1 else f"{rate.multiples} {unit}s"
