"""Server settings: defaults, then ``PARLOUR_*`` environment variables, then command-line flags."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = ["Settings", "parse_rules_pins"]


@dataclass(frozen=True)
class Settings:
    """Everything the composition root needs to build a server."""

    grpc_host: str = "0.0.0.0"
    grpc_port: int = 50051
    #: The REST/JSON gateway and the web page (same process, same application as gRPC).
    http_host: str = "0.0.0.0"
    http_port: int = 8080
    #: Files of the web page served at ``/``; None: the repository's ``clients/web`` when it exists.
    web_dir: Path | None = None
    #: Redis URL (``redis://host:port/db``); empty: start an embedded Redis with its files in ``data_dir``.
    redis_url: str = ""
    data_dir: Path = field(default_factory=lambda: Path("data"))
    #: Seed nodes of a Redis Cluster (``host:port,host:port``); when set, the server runs on that cluster.
    redis_cluster: str = ""
    #: Acknowledge a command only once its events are on this many Redis replicas as well (Redis WAIT).
    replica_acks: int = 0
    #: How long to wait for those replicas before answering UNAVAILABLE (the command may be retried).
    replica_ack_timeout_ms: int = 2000
    #: How long a live WatchGame stream waits for an unreachable Redis (and then goes on with what it
    #: missed) before it ends with UNAVAILABLE for its client to resume.
    watch_outage_seconds: float = 15.0
    #: How often the server asks Redis whether it answers (gRPC health and ``/readyz`` follow).
    readiness_seconds: float = 0.5
    #: Prefix of every Redis key, so several deployments (or test runs) can share one Redis.
    key_prefix: str = "parlour"
    snapshot_every: int = 100
    #: Games whose latest state each server process keeps in memory (``--cache-games``,
    #: ``PARLOUR_CACHE_GAMES``; 1 or more), the least recently used dropped first and loaded again from its
    #: snapshot when next needed: fewer hold less memory and make each full garbage collection shorter.
    cache_games: int = 10_000
    max_message_bytes: int = 64 * 1024
    #: The largest request of a call that carries a whole game export (VerifyGame, ImportGame,
    #: ViewReplay; ``--max-export-bytes``): a long game's export is larger than any other request.
    max_export_bytes: int = 16 * 1024 * 1024
    log_level: str = "info"
    log_json: bool = True
    #: The key that guards tournament administration (metadata/header ``x-parlour-admin-key``); empty:
    #: administration is refused.
    admin_key: str = ""
    #: Longest time between two looks at the deadlines in Redis (deadlines set by this process wake the
    #: enforcer at once; those set by other processes are seen within this time).
    clock_poll_seconds: float = 1.0
    #: How often each process looks for clocked games whose deadlines were never set (a process stopped
    #: just after storing a command); such a game is repaired at the second look that finds it.
    clock_sweep_seconds: float = 5.0
    #: Most bots one tournament takes (``--max-tournament-bots``).
    max_tournament_bots: int = 64
    #: Most games one round of a tournament may have (``--max-round-games``): a round robin's games grow
    #: as the field's size to the power of the table size.
    max_round_games: int = 1000
    #: A second port serving only ``/metrics`` (``--metrics-port``); None: ``/metrics`` on the HTTP port only.
    metrics_port: int | None = None
    #: Per-client quotas (see ``service.app.limits``): rates like "60/minute" ("" or "0": none) and open
    #: streams per client and per process (0: none).
    rate_create_games: str = "300/minute"
    rate_claim_seats: str = "1200/minute"
    rate_joins: str = "120/minute"
    rate_calls: str = "1000/second"
    max_streams_per_client: int = 32
    max_streams: int = 1000
    #: A server stream whose client has taken nothing it was sent for this long is ended with
    #: RESOURCE_EXHAUSTED (``--stream-stall-seconds``; 0: never; see ``service.api.stalls``).
    stream_stall_seconds: float = 30.0
    #: The time per move a game's time control may have (``--min-move-ms``, ``--max-move-ms``).
    min_move_ms: int = 1000
    #: Creating games, claiming seats and registering new bot names need an API key
    #: (``--require-api-key``; keys are made with AdminService).
    require_api_key: bool = False
    #: Retention (``--abandon-after-hours``, ``--finished-ttl-hours``, ``--export-dir``,
    #: ``--retention-seconds``): a running game nobody moved in for that long is ended as abandoned; a
    #: finished game is deleted that long after its end (exported first into ``export_dir`` when set);
    #: 0 hours: never.
    abandon_after_hours: float = 24.0
    finished_ttl_hours: float = 720.0
    export_dir: Path | None = None
    retention_seconds: float = 600.0
    #: TLS for gRPC and HTTPS from one PEM certificate chain and key (``--tls-cert``, ``--tls-key``);
    #: None: plain text.
    tls_cert: Path | None = None
    tls_key: Path | None = None
    max_move_ms: int = 3_600_000
    #: The largest pages of ListGames and ListEvents (``--max-games-page``, ``--max-events-page``; a larger
    #: page_size gets this many) and the longest names (``--max-player-name-length``,
    #: ``--max-bot-name-length``, ``--max-api-key-name-length``); see ``service.app.sizes``.
    max_games_page: int = 500
    max_events_page: int = 1000
    max_player_name_length: int = 64
    max_bot_name_length: int = 64
    max_api_key_name_length: int = 64
    #: Networks of the proxies whose ``X-Forwarded-For`` names the client the quotas count
    #: (``--trusted-proxies CIDR[,CIDR]``; empty: the header is never read; see ``service.api.forwarded``).
    trusted_proxies: str = ""
    #: The rules version new games of a game get, by game name, where it is not the newest (``--rules
    #: GAME=VERSION``, ``PARLOUR_RULES``): during a rolling upgrade, new replicas keep making games of the
    #: version older replicas still serve. Games always continue under the version they began with.
    rules_pins: tuple[tuple[str, str], ...] = ()
    #: Server processes sharing the ports (``--workers``, ``PARLOUR_WORKERS``); None: one per core this
    #: process may run on (see ``service.workers.default_workers``). 1 serves in the ``parlour serve``
    #: process itself, as a single replica; more start a parent that supervises that many workers.
    workers: int | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Defaults overridden by ``PARLOUR_GRPC_PORT``, ``PARLOUR_HTTP_PORT``, ``PARLOUR_WEB_DIR``,
        ``PARLOUR_REDIS_URL``, ``PARLOUR_REDIS_CLUSTER``, ``PARLOUR_REPLICA_ACKS``,
        ``PARLOUR_DATA_DIR``, ``PARLOUR_KEY_PREFIX``, ``PARLOUR_ADMIN_KEY``,
        ``PARLOUR_LOG_LEVEL``, ``PARLOUR_METRICS_PORT``, ``PARLOUR_WORKERS``, ``PARLOUR_CACHE_GAMES`` and
        ``PARLOUR_RULES``
        (``GAME=VERSION`` pairs, comma separated).
        Raises ValueError naming a bad value."""
        env = os.environ if env is None else env
        values = {field: parse(env[name], name) for name, (field, parse) in _ENVIRONMENT.items() if name in env}
        return replace(cls(), **values)


def parse_rules_pins(pins: list[str], where: str) -> tuple[tuple[str, str], ...]:
    """``(game, rules version)`` pairs from ``GAME=VERSION`` texts (``oldmen=oldmen/1``; the game may be
    left out: ``oldmen/1``), sorted by game; ValueError naming ``where`` for a text of another form or a
    game given twice."""
    pairs: dict[str, str] = {}
    for pin in pins:
        game, equals, version = pin.strip().partition("=")
        if not equals:
            game, version = pin.strip().partition("/")[0], pin.strip()
        if not game or "/" not in version or version.partition("/")[0] != game:
            raise ValueError(f"{where} takes GAME=VERSION like 'libertalia=libertalia/1', not {pin!r}")
        if game in pairs:
            raise ValueError(f"{where} names the rules of {game} twice")
        pairs[game] = version
    return tuple(sorted(pairs.items()))


def _text(text: str, name: str) -> str:
    return text


def _path(text: str, name: str) -> Path:
    return Path(text)


def _pins(text: str, name: str) -> tuple[tuple[str, str], ...]:
    return parse_rules_pins([pin for pin in text.split(",") if pin.strip()], name)


def _port(text: str, name: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise ValueError(f"{name} must be a port number from 0 to 65535, not {text!r}")
    return int(text)


def _at_least_one(things: str) -> Callable[[str, str], int]:
    """A reader of a whole number of ``things``, 1 or more (ValueError naming the variable otherwise)."""

    def read(text: str, name: str) -> int:
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"{name} must be a whole number of {things} (1 or more), not {text!r}")
        return int(text)

    return read


def _count(text: str, name: str) -> int:
    if not text.isdigit():
        raise ValueError(f"{name} must be a whole number of replicas (0 or more), not {text!r}")
    return int(text)


#: Each environment variable: the setting it sets and how its text is read (ValueError naming it if bad).
_ENVIRONMENT: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "PARLOUR_GRPC_PORT": ("grpc_port", _port),
    "PARLOUR_HTTP_PORT": ("http_port", _port),
    "PARLOUR_WEB_DIR": ("web_dir", _path),
    "PARLOUR_REDIS_URL": ("redis_url", _text),
    "PARLOUR_REDIS_CLUSTER": ("redis_cluster", _text),
    "PARLOUR_REPLICA_ACKS": ("replica_acks", _count),
    "PARLOUR_DATA_DIR": ("data_dir", _path),
    "PARLOUR_KEY_PREFIX": ("key_prefix", _text),
    "PARLOUR_ADMIN_KEY": ("admin_key", _text),
    "PARLOUR_LOG_LEVEL": ("log_level", lambda text, name: text.lower()),
    "PARLOUR_METRICS_PORT": ("metrics_port", _port),
    "PARLOUR_RULES": ("rules_pins", _pins),
    "PARLOUR_WORKERS": ("workers", _at_least_one("worker processes")),
    "PARLOUR_CACHE_GAMES": ("cache_games", _at_least_one("games")),
}
