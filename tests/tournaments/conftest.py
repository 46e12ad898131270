"""A server with an admin key, on port 0 over real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.tournaments.helpers import ADMIN_KEY


@pytest.fixture
async def admin_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A running server whose admin key is ADMIN_KEY."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)
