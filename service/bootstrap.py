"""The composition root: the only place that reads settings and opens connections."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import structlog
from google.protobuf.descriptor import ServiceDescriptor

from engines.registry import REGISTRY, Registry
from parlour.v1 import admin_service_pb2, bot_service_pb2, game_service_pb2, replay_service_pb2, tournament_service_pb2
from parlour.v1.admin_service_pb2_grpc import add_AdminServiceServicer_to_server
from parlour.v1.bot_service_pb2_grpc import add_BotServiceServicer_to_server
from parlour.v1.game_service_pb2_grpc import add_GameServiceServicer_to_server
from parlour.v1.replay_service_pb2_grpc import add_ReplayServiceServicer_to_server
from parlour.v1.tournament_service_pb2_grpc import add_TournamentServiceServicer_to_server
from service import metrics
from service.api.forwarded import TrustedProxies
from service.api.grpc_admin import AdminServicer
from service.api.grpc_bots import BotServicer, TournamentServicer
from service.api.grpc_gate import GateWrapper
from service.api.grpc_replay import ReplayServicer
from service.api.grpc_server import GameServicer, GrpcServer, Service, build_grpc_server
from service.api.ports import PortUnavailableError
from service.api.request_sizes import RequestSizes
from service.api.rest import HttpServer, build_http_server
from service.api.rest.server import MetricsPage, build_metrics_server
from service.api.stalls import Stalls
from service.api.tls import TlsFiles
from service.app.api_keys import ApiKeys
from service.app.bots import Bots
from service.app.bounds import request_bounds
from service.app.clocks import ClockKeeper, Clocks
from service.app.fanout import CommandsFirst
from service.app.games import Games
from service.app.gate import Gate
from service.app.house_bots import HouseBots
from service.app.limits import Limits, LimitSettings
from service.app.meta_fields import FINISHED, RUNNING
from service.app.readiness import Readiness
from service.app.replays import Replays
from service.app.retention import Retention, RetentionSettings
from service.app.sizes import SizeLimits
from service.app.stream_tickets import StreamTickets
from service.app.time_control import ClockRange
from service.app.tournaments.limits import FieldLimits
from service.app.tournaments.service import Tournaments
from service.config import Settings
from service.store.api_keys import RedisApiKeys
from service.store.bots import RedisBots
from service.store.clocks import RedisClocks
from service.store.connection import RedisConnection, open_redis
from service.store.keys import Keys
from service.store.redis_store import RedisEventStore
from service.store.tickets import RedisTickets
from service.store.tournaments import RedisTournaments

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
    replays: Replays
    grpc: GrpcServer
    http: HttpServer
    clocks: Clocks | None = None
    bots: Bots | None = None
    tournaments: Tournaments | None = None
    #: The separate ``/metrics`` server of ``--metrics-port`` (None: only on the HTTP port).
    metrics_http: HttpServer | None = None
    house_bots: HouseBots | None = None
    #: Ends abandoned games and deletes expired ones (see ``service.app.retention``).
    retention: Retention | None = None
    readiness: Readiness | None = None
    #: Background work of this process (the deadline enforcer, the tournament schedulers).
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def grpc_port(self) -> int:
        """The port the gRPC server listens on."""
        return self.grpc.port

    @property
    def http_port(self) -> int:
        """The port the HTTP server (REST/JSON, OpenAPI, web page) listens on."""
        return self.http.port

    async def start(self) -> None:
        """Start serving. When a part cannot start (a taken HTTP port raises PortUnavailableError), what
        already started is stopped and Redis closed before the error propagates."""
        try:
            await self.grpc.start()
            await self.http.start()
            if self.metrics_http is not None:
                await self.metrics_http.start()
        except BaseException:
            await self.stop(grace=0)
            raise
        if self.clocks is not None:
            self.tasks.append(asyncio.create_task(self.clocks.run()))
        if self.tournaments is not None:
            self.tasks.append(asyncio.create_task(self.tournaments.run()))
        if self.house_bots is not None:
            self.tasks.append(asyncio.create_task(self._resume_house_bots(self.house_bots)))
        if self.retention is not None:
            self.tasks.append(asyncio.create_task(self.retention.run()))
        if self.readiness is not None:
            self.tasks.append(asyncio.create_task(self.readiness.run()))
        self.tasks.append(asyncio.create_task(self.redis.supervise()))
        self.tasks.append(asyncio.create_task(metrics.count_event_loop_busy()))
        log.info("server started", grpc_port=self.grpc_port, http_port=self.http_port, redis=self.redis.url)

    async def _resume_house_bots(self, house_bots: HouseBots) -> None:
        """Let the house seats that had to act while no server ran move (a failure is logged, not fatal)."""
        try:
            resumed = await house_bots.resume_all()
        except Exception as error:  # the server serves on; those seats move when their games next change
            log.warning("house bots not resumed", error=repr(error))
        else:
            log.info("house bots resumed", games=resumed)

    async def stop(self, grace: float = 2.0) -> None:
        """Stop serving (calls in flight get ``grace`` seconds), then close Redis."""
        for part in (self.clocks, self.tournaments, self.house_bots, self.retention):
            if part is not None:
                part.close()
        for task in self.tasks:
            task.cancel()
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=grace + 2.0)
        self.tasks.clear()
        await self.http.stop(grace)
        if self.metrics_http is not None:
            await self.metrics_http.stop(grace)
        await self.grpc.stop(grace)
        if self.tournaments is not None:
            await self.tournaments.aclose()
        await self.store.close()
        await self.redis.close()
        log.info("server stopped")


def build_app(settings: Settings, registry: Registry = REGISTRY, *, share_ports: bool = False) -> App:
    """Open Redis (embedded when no URL is set), build the store, the application, and the gRPC and HTTP
    servers over it, playing the rules versions of ``registry`` (new games get the ones
    ``settings.rules_pins`` names). A gRPC port that cannot be bound raises PortUnavailableError (Redis
    closed again). With ``share_ports`` the servers' ports are shared with other processes that share them
    too (``SO_REUSEPORT``): only for the workers of one ``parlour serve --workers N`` (see
    ``service.workers``)."""
    redis = open_redis(
        settings.redis_url, settings.data_dir, settings.redis_cluster, max_connections=redis_pool_size(settings)
    )
    parts = _application(settings, registry, redis)
    services = _services(settings, parts)
    gate = Gate(Limits(limit_settings(settings)), parts.api_keys)
    sizes_of_requests = RequestSizes(settings.max_message_bytes, settings.max_export_bytes)
    tls = TlsFiles(settings.tls_cert, settings.tls_key) if settings.tls_cert and settings.tls_key else None
    proxies = TrustedProxies.parse(settings.trusted_proxies)
    try:
        grpc_server = build_grpc_server(
            services,
            host=settings.grpc_host,
            port=settings.grpc_port,
            max_message_bytes=sizes_of_requests.largest,
            wrappers=[GateWrapper(gate, sizes_of_requests, proxies=proxies)],
            tls=tls.grpc_credentials() if tls else None,
            reuse_port=share_ports,
        )
    except PortUnavailableError:
        redis.discard()
        raise
    page = _metrics_page(parts.store, redis.client)
    readiness = Readiness(redis.ping, grpc_server.set_serving, every=settings.readiness_seconds)
    http_server = build_http_server(
        [(service.descriptor, service.servicer) for service in services],
        host=settings.http_host,
        port=settings.http_port,
        body_sizes=sizes_of_requests,
        web_dir=settings.web_dir or _repository_web_dir(),
        metrics_page=page,
        gate=gate,
        ready=lambda: readiness.ready,
        proxies=proxies,
        bounds=request_bounds(parts.clock_range, parts.sizes),
    )
    if tls is not None:
        http_server.ssl_context = tls.ssl_context()
    http_server.reuse_port = share_ports
    metrics_http = None
    if settings.metrics_port is not None:
        metrics_http = build_metrics_server(host=settings.http_host, port=settings.metrics_port, page=page)
        metrics_http.reuse_port = share_ports
    return App(
        settings=settings,
        redis=redis,
        store=parts.store,
        games=parts.games,
        replays=parts.replays,
        grpc=grpc_server,
        http=http_server,
        clocks=parts.clocks,
        bots=parts.bots,
        tournaments=parts.tournaments,
        metrics_http=metrics_http,
        house_bots=parts.house_bots,
        retention=Retention(parts.games, parts.replays, _now_ms, _retention_settings(settings)),
        readiness=readiness,
    )


@dataclass(frozen=True)
class _Application:
    """The use cases of one server process over its store, and the limits the transports state."""

    store: RedisEventStore
    games: Games
    replays: Replays
    clocks: Clocks
    house_bots: HouseBots
    tickets: StreamTickets
    api_keys: ApiKeys
    bots: Bots
    tournaments: Tournaments
    clock_range: ClockRange
    sizes: SizeLimits


def _application(settings: Settings, registry: Registry, redis: RedisConnection) -> _Application:
    """The store and the use cases over ``redis``, each built once, in the order they depend on each other."""
    keys = Keys(settings.key_prefix)
    sizes = size_limits(settings)
    commands_first = CommandsFirst()
    store = RedisEventStore(
        redis.client,
        keys,
        clock_ms=lambda: time.time() * 1000,
        replica_acks=settings.replica_acks,
        replica_ack_timeout_ms=settings.replica_ack_timeout_ms,
        live_gives_way=commands_first.give_way,
        appends_may_join=commands_first.several,
        watch_outage_s=settings.watch_outage_seconds,
    )
    keeper = ClockKeeper(RedisClocks(redis.client, keys), store, _now_ms)
    clock_range = ClockRange(settings.min_move_ms, settings.max_move_ms)
    games = Games(
        store,
        observers=[keeper],
        snapshot_every=settings.snapshot_every,
        cache_games=settings.cache_games,
        clock_range=clock_range,
        think_times=keeper,
        deadlines=keeper,
        now_ms=_now_ms,
        commands_first=commands_first,
        sizes=sizes,
        registry=registry.pinned(dict(settings.rules_pins)),
    )
    house_bots = HouseBots(games)
    games.add_observer(house_bots)  # after the keeper: a house seat's clock is set before it moves
    clocks = Clocks(
        keeper, games, _now_ms, poll_seconds=settings.clock_poll_seconds, sweep_seconds=settings.clock_sweep_seconds
    )
    api_keys = ApiKeys(RedisApiKeys(redis.client, keys), required=settings.require_api_key, sizes=sizes)
    bots = Bots(RedisBots(redis.client, keys), games, clocks, api_keys, sizes=sizes)
    tournament_store = RedisTournaments(
        redis.client,
        keys,
        replica_acks=settings.replica_acks,
        replica_ack_timeout_ms=settings.replica_ack_timeout_ms,
    )
    limits = FieldLimits(settings.max_tournament_bots, settings.max_round_games)
    return _Application(
        store=store,
        games=games,
        replays=Replays(store, games),
        clocks=clocks,
        house_bots=house_bots,
        tickets=StreamTickets(RedisTickets(redis.client, keys), games, _now_ms),
        api_keys=api_keys,
        bots=bots,
        tournaments=Tournaments(tournament_store, games, bots, clocks, _now_ms, limits=limits),
        clock_range=clock_range,
        sizes=sizes,
    )


def _services(settings: Settings, parts: _Application) -> list[Service]:
    """The gRPC services over the use cases (the REST/JSON routes are made from the same)."""
    return [
        Service(
            _descriptor(game_service_pb2, "GameService"),
            GameServicer(parts.games, parts.tickets, Stalls(settings.stream_stall_seconds)),
            add_GameServiceServicer_to_server,
        ),
        Service(
            _descriptor(replay_service_pb2, "ReplayService"),
            ReplayServicer(parts.replays),
            add_ReplayServiceServicer_to_server,
        ),
        Service(_descriptor(bot_service_pb2, "BotService"), BotServicer(parts.bots), add_BotServiceServicer_to_server),
        Service(
            _descriptor(tournament_service_pb2, "TournamentService"),
            TournamentServicer(parts.tournaments, settings.admin_key),
            add_TournamentServiceServicer_to_server,
        ),
        Service(
            _descriptor(admin_service_pb2, "AdminService"),
            AdminServicer(parts.api_keys, parts.bots, parts.games, settings.admin_key),
            add_AdminServiceServicer_to_server,
        ),
    ]


def _metrics_page(store: RedisEventStore, client: Any) -> MetricsPage:
    """``/metrics``: the process's metrics, with the games by status and a PING's round trip sampled."""

    async def sample() -> None:
        start = time.perf_counter()
        await client.ping()
        metrics.set_redis_ping(time.perf_counter() - start)
        for status in (RUNNING, FINISHED):
            metrics.set_games(status, await store.count_games(status))

    async def page() -> bytes:
        return await metrics.render(sample)

    return page


def _retention_settings(settings: Settings) -> RetentionSettings:
    return RetentionSettings(
        abandon_after_hours=settings.abandon_after_hours,
        finished_ttl_hours=settings.finished_ttl_hours,
        export_dir=settings.export_dir,
        interval_seconds=settings.retention_seconds,
    )


def size_limits(settings: Settings) -> SizeLimits:
    """The page and name limits of ``settings`` (fields of the same names); raises ValueError naming the
    flag of one below 1."""
    return SizeLimits(**{f.name: getattr(settings, f.name) for f in fields(SizeLimits)})


#: Redis connections beyond the streams' own: commands in flight and the live tails (a few per process).
REDIS_POOL_MARGIN = 1000


def redis_pool_size(settings: Settings) -> int | None:
    """The most connections this process opens to Redis (to each node of a cluster): every open bot
    stream holds one of its own while it waits for assignments, so the pool is ``--max-streams`` plus a
    margin for the commands and the shared tails. None (the store's default pool, 2000) with
    ``--max-streams 0``, which sets no limit to follow."""
    return settings.max_streams + REDIS_POOL_MARGIN if settings.max_streams > 0 else None


def limit_settings(settings: Settings) -> LimitSettings:
    """The quotas of ``settings``."""
    return LimitSettings(
        rate_create_games=settings.rate_create_games,
        rate_claim_seats=settings.rate_claim_seats,
        rate_joins=settings.rate_joins,
        rate_calls=settings.rate_calls,
        max_streams_per_client=settings.max_streams_per_client,
        max_streams=settings.max_streams,
    )


def _now_ms() -> int:
    """The server's clock, in ms since the epoch."""
    return int(time.time() * 1000)


def _repository_web_dir() -> Path | None:
    """``clients/web`` of the source tree this server runs from, if there is one."""
    candidate = Path(__file__).resolve().parent.parent / "clients" / "web"
    return candidate if candidate.is_dir() else None


def _descriptor(module: Any, name: str) -> ServiceDescriptor:
    descriptor: ServiceDescriptor = module.DESCRIPTOR.services_by_name[name]
    return descriptor
