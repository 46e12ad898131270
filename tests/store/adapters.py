"""The adapters of each store port that the contract suites run against, built over one Redis target.

A suite's fixture asks for the port (typed to it) and gets each adapter in turn: the Redis adapter on the
embedded Redis, and on ``REDIS_URL`` when it is set (``redis_client`` is parametrized by target). An
adapter for another backend (a Redis Cluster) is added here, and every suite runs on it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import redis.asyncio as aioredis

from service.store.api_key_port import ApiKeyStore
from service.store.api_keys import RedisApiKeys
from service.store.bot_port import BotStore
from service.store.bots import RedisBots
from service.store.clock_port import ClockStore
from service.store.clocks import RedisClocks
from service.store.keys import Keys
from service.store.port import EventStore
from service.store.redis_store import RedisEventStore
from service.store.tournament_port import TournamentStore
from service.store.tournaments import RedisTournaments

__all__ = ["api_key_store", "bot_store", "clock_store", "event_store", "tournament_store"]

_clock = itertools.count(1_000_000)


def event_store(client: aioredis.Redis, prefix: str, clock_ms: Callable[[], float] | None = None) -> EventStore:
    """The event store on ``client`` under ``prefix`` (its clock a counter unless given)."""
    return RedisEventStore(client, Keys(prefix), clock_ms=clock_ms or (lambda: next(_clock)))


def clock_store(client: aioredis.Redis, prefix: str) -> ClockStore:
    """The clock store on ``client`` under ``prefix`` (beside the event store of the same prefix)."""
    return RedisClocks(client, Keys(prefix))


def bot_store(client: aioredis.Redis, prefix: str) -> BotStore:
    """The bot store on ``client`` under ``prefix``."""
    return RedisBots(client, Keys(prefix))


def api_key_store(client: aioredis.Redis, prefix: str) -> ApiKeyStore:
    """The API-key store on ``client`` under ``prefix``."""
    return RedisApiKeys(client, Keys(prefix))


def tournament_store(client: aioredis.Redis, prefix: str) -> TournamentStore:
    """The tournament store on ``client`` under ``prefix``."""
    return RedisTournaments(client, Keys(prefix))
