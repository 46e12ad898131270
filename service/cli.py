"""``parlour serve``: the server's command, added to the ``parlour`` command line through the
``parlour.commands`` entry point (so the client SDK itself never imports the server)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from dataclasses import replace
from pathlib import Path

from service.cli_limits import add_limit_flags, check_limits, limit_overrides
from service.cli_tls import add_tls_flags, tls_overrides
from service.config import Settings, parse_rules_pins
from service.heap import settle_start_up
from service.logs import configure_logging

__all__ = ["register"]


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add the ``serve`` sub-command."""
    parser = commands.add_parser(
        "serve",
        help="run a Parlour server",
        description="Run a Parlour server. Without --redis it starts a private embedded Redis whose files "
        "live in --data-dir, so a restart loses nothing.",
    )
    parser.add_argument("--host", default=None, help="address to listen on (default 0.0.0.0)")
    parser.add_argument("--grpc-port", type=int, default=None, help="gRPC port (default 50051; 0 picks a free one)")
    parser.add_argument(
        "--http-port", type=int, default=None, help="REST/JSON and web page port (default 8080; 0 picks a free one)"
    )
    parser.add_argument(
        "--redis", metavar="URL", default=None, help="Redis URL (or PARLOUR_REDIS_URL); default: embedded"
    )
    parser.add_argument(
        "--redis-cluster",
        metavar="SEED[,SEED...]",
        default=None,
        help="run on a Redis Cluster: host:port of one or more of its nodes (or PARLOUR_REDIS_CLUSTER)",
    )
    parser.add_argument(
        "--replica-acks",
        metavar="N",
        type=int,
        default=None,
        help="acknowledge a command only once N Redis replicas hold it too (WAIT; or PARLOUR_REPLICA_ACKS)",
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", default=None, help="where the embedded Redis keeps its files (default ./data)"
    )
    parser.add_argument("--key-prefix", default=None, help="prefix of every Redis key (default parlour)")
    parser.add_argument(
        "--admin-key",
        default=None,
        help="key guarding tournament creation and start (or PARLOUR_ADMIN_KEY); without one they are refused",
    )
    parser.add_argument(
        "--metrics-port", type=int, default=None, help="also serve /metrics (Prometheus) alone on this port"
    )
    parser.add_argument(
        "--rules",
        metavar="GAME=VERSION",
        action="append",
        default=None,
        help="the rules version new games of GAME get, e.g. libertalia=libertalia/1 (default: the newest; "
        "repeat for several games; or PARLOUR_RULES). Running games keep the version they began with",
    )
    parser.add_argument(
        "--workers",
        metavar="N",
        type=int,
        default=None,
        help="server processes sharing the ports, each a full replica on the same Redis (or PARLOUR_WORKERS; "
        "default: one per core; 1 serves in this process)",
    )
    parser.add_argument(
        "--cache-games",
        metavar="N",
        type=int,
        default=None,
        help="games whose latest state each server process keeps in memory, the least recently used dropped "
        f"first (or PARLOUR_CACHE_GAMES; default {Settings.cache_games}): fewer hold less memory and shorten "
        "garbage collections",
    )
    parser.add_argument("--log-level", default=None, choices=["debug", "info", "warning", "error"])
    parser.add_argument("--log-format", default="json", choices=["json", "text"], help="log lines as JSON or text")
    add_limit_flags(parser)
    add_tls_flags(parser)
    parser.set_defaults(run=_serve)


def _settings(args: argparse.Namespace) -> Settings:
    try:
        settings = Settings.from_env()
    except ValueError as error:  # a bad PARLOUR_* value: one line naming it, not a traceback
        raise SystemExit(f"parlour serve: {error}") from error
    overrides = {
        "grpc_host": args.host,
        "grpc_port": args.grpc_port,
        "http_host": args.host,
        "http_port": args.http_port,
        "redis_url": args.redis,
        "redis_cluster": args.redis_cluster,
        "replica_acks": args.replica_acks,
        "data_dir": Path(args.data_dir) if args.data_dir else None,
        "key_prefix": args.key_prefix,
        "admin_key": args.admin_key,
        "log_level": args.log_level,
        "metrics_port": args.metrics_port,
        "workers": args.workers,
        "cache_games": args.cache_games,
        **limit_overrides(args),
        **tls_overrides(args),
    }
    if args.rules is not None:
        try:
            overrides["rules_pins"] = parse_rules_pins(args.rules, "--rules")
        except ValueError as error:
            raise SystemExit(f"parlour serve: {error}") from error
    settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
    if not 0 <= settings.grpc_port <= 65535:
        raise SystemExit(f"parlour serve: --grpc-port must be 0 to 65535, not {settings.grpc_port}")
    if not 0 <= settings.http_port <= 65535:
        raise SystemExit(f"parlour serve: --http-port must be 0 to 65535, not {settings.http_port}")
    if settings.metrics_port is not None and not 0 <= settings.metrics_port <= 65535:
        raise SystemExit(f"parlour serve: --metrics-port must be 0 to 65535, not {settings.metrics_port}")
    if settings.workers is not None and settings.workers < 1:
        raise SystemExit(f"parlour serve: --workers must be 1 or more, not {settings.workers}")
    if settings.cache_games < 1:
        raise SystemExit(f"parlour serve: --cache-games must be 1 or more, not {settings.cache_games}")
    if settings.replica_acks < 0:
        raise SystemExit(f"parlour serve: --replica-acks must be 0 or more, not {settings.replica_acks}")
    if settings.redis_cluster and settings.redis_url:
        raise SystemExit("parlour serve: give either --redis or --redis-cluster, not both")
    if settings.redis_cluster:
        from service.store.connection import parse_seeds

        try:
            parse_seeds(settings.redis_cluster)
        except ValueError as error:
            raise SystemExit(f"parlour serve: --redis-cluster: {error}") from error
    check_limits(settings)
    _check_rules(settings)
    return replace(settings, log_json=args.log_format == "json")


def _check_rules(settings: Settings) -> None:
    """Exit with one sentence if a pinned rules version is not installed."""
    from engines.registry import REGISTRY

    try:
        REGISTRY.pinned(dict(settings.rules_pins))
    except ValueError as error:
        raise SystemExit(f"parlour serve: --rules: {error}") from error


def _serve(args: argparse.Namespace) -> int:
    settings = _settings(args)
    configure_logging(settings.log_level, json=settings.log_json)
    from service.api.ports import PortUnavailableError
    from service.event_loop import run
    from service.workers import WorkerStartError, default_workers, supervise

    workers = settings.workers or default_workers()
    try:
        if workers == 1:
            run(_run(settings))
        else:
            supervise(settings, workers, _announce)
    except (PortUnavailableError, WorkerStartError, OSError) as error:
        print(f"parlour serve: cannot start: {error}", file=sys.stderr)
        return 1
    return 0


async def _run(settings: Settings) -> None:
    from service.bootstrap import build_app

    app = build_app(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await app.start()
    settle_start_up()
    _announce(settings, app.grpc_port, app.http_port, app.redis.url)
    await stop.wait()
    await app.stop()


def _announce(settings: Settings, grpc_port: int, http_port: int, where: str) -> None:
    """The start lines: where gRPC, REST/JSON and the web page are served, and on which Redis."""
    print(f"Parlour gRPC on {settings.grpc_host}:{grpc_port} (Redis: {where}); Ctrl-C stops", flush=True)
    scheme = "https" if settings.tls_cert else "http"
    print(f"Parlour REST/JSON and web page on {scheme}://{_visible(settings.http_host)}:{http_port}/", flush=True)


def _visible(host: str) -> str:
    """An address a browser on this machine can open for a server listening on ``host``."""
    return "localhost" if host in ("0.0.0.0", "::", "") else host
