"""The store contract suites run on every target, a real Redis Cluster included (3 masters, 3 replicas)."""

from __future__ import annotations

import pytest

from tests.conftest import RedisTarget, target_of, targets


@pytest.fixture(params=[*targets(), "cluster"])
def redis_target(request: pytest.FixtureRequest) -> RedisTarget:
    """Each Redis the stores must work on: embedded, ``REDIS_URL`` when set, and a Redis Cluster."""
    return target_of(request)
