"""The composition root: the only place that reads settings and opens connections."""

from __future__ import annotations

import time
from dataclasses import dataclass

import structlog

from service.api.grpc_server import GrpcServer, build_grpc_server
from service.app.games import Games
from service.config import Settings
from service.store.connection import RedisConnection, open_redis
from service.store.keys import Keys
from service.store.redis_store import RedisEventStore

__all__ = ["App", "build_app"]

log = structlog.get_logger("parlour.server")


@dataclass
class App:
    """A running server's parts. ``grpc_port`` is the bound port (useful when asked for port 0)."""

    settings: Settings
    redis: RedisConnection
    store: RedisEventStore
    games: Games
    grpc: GrpcServer

    @property
    def grpc_port(self) -> int:
        """The port the gRPC server listens on."""
        return self.grpc.port

    async def start(self) -> None:
        """Start serving."""
        await self.grpc.start()
        log.info("server started", grpc_port=self.grpc_port, redis=self.redis.url)

    async def stop(self, grace: float = 2.0) -> None:
        """Stop serving (calls in flight get ``grace`` seconds), then close Redis."""
        await self.grpc.stop(grace)
        await self.store.close()
        await self.redis.close()
        log.info("server stopped")


def build_app(settings: Settings) -> App:
    """Open Redis (embedded when no URL is set), build the store, the application and the gRPC server."""
    redis = open_redis(settings.redis_url, settings.data_dir)
    store = RedisEventStore(redis.client, Keys(settings.key_prefix), clock_ms=lambda: time.time() * 1000)
    games = Games(store, snapshot_every=settings.snapshot_every, cache_games=settings.cache_games)
    grpc_server = build_grpc_server(
        games, host=settings.grpc_host, port=settings.grpc_port, max_message_bytes=settings.max_message_bytes
    )
    return App(settings=settings, redis=redis, store=store, games=games, grpc=grpc_server)
