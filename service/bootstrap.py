"""The composition root: the only place that reads settings and opens connections."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import structlog

from parlour.v1 import game_service_pb2
from service.api.grpc_server import GameServicer, GrpcServer, build_grpc_server
from service.api.rest import HttpServer, build_http_server
from service.app.games import Games
from service.config import Settings
from service.store.connection import RedisConnection, open_redis
from service.store.keys import Keys
from service.store.redis_store import RedisEventStore

__all__ = ["App", "build_app"]

log = structlog.get_logger("parlour.server")


@dataclass
class App:
    """A running server's parts. ``grpc_port`` and ``http_port`` are the bound ports (useful when asked for
    port 0; ``http_port`` is known once started)."""

    settings: Settings
    redis: RedisConnection
    store: RedisEventStore
    games: Games
    grpc: GrpcServer
    http: HttpServer

    @property
    def grpc_port(self) -> int:
        """The port the gRPC server listens on."""
        return self.grpc.port

    @property
    def http_port(self) -> int:
        """The port the HTTP server (REST/JSON, OpenAPI, web page) listens on."""
        return self.http.port

    async def start(self) -> None:
        """Start serving."""
        await self.grpc.start()
        await self.http.start()
        log.info("server started", grpc_port=self.grpc_port, http_port=self.http_port, redis=self.redis.url)

    async def stop(self, grace: float = 2.0) -> None:
        """Stop serving (calls in flight get ``grace`` seconds), then close Redis."""
        await self.http.stop(grace)
        await self.grpc.stop(grace)
        await self.store.close()
        await self.redis.close()
        log.info("server stopped")


def build_app(settings: Settings) -> App:
    """Open Redis (embedded when no URL is set), build the store, the application, and the gRPC and HTTP
    servers over it."""
    redis = open_redis(settings.redis_url, settings.data_dir)
    store = RedisEventStore(redis.client, Keys(settings.key_prefix), clock_ms=lambda: time.time() * 1000)
    games = Games(store, snapshot_every=settings.snapshot_every, cache_games=settings.cache_games)
    grpc_server = build_grpc_server(
        games, host=settings.grpc_host, port=settings.grpc_port, max_message_bytes=settings.max_message_bytes
    )
    http_server = build_http_server(
        [(game_service_pb2.DESCRIPTOR.services_by_name["GameService"], GameServicer(games))],
        host=settings.http_host,
        port=settings.http_port,
        max_body_bytes=settings.max_message_bytes,
        web_dir=settings.web_dir or _repository_web_dir(),
    )
    return App(settings=settings, redis=redis, store=store, games=games, grpc=grpc_server, http=http_server)


def _repository_web_dir() -> Path | None:
    """``clients/web`` of the source tree this server runs from, if there is one."""
    candidate = Path(__file__).resolve().parent.parent / "clients" / "web"
    return candidate if candidate.is_dir() else None
