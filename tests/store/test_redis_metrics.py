"""The Redis metrics of the server's own clients (``open_redis``), on a single Redis and a Redis Cluster
alike: every round trip is timed once under its command (a pipeline once, as the commands it carries), and
every failed command is counted once under its error class."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY
from redis.exceptions import ResponseError

from service.store.acks import ScriptRunner
from service.store.connection import RedisConnection, open_redis
from service.store.failures import StoreUnavailableError
from tests.conftest import RedisTarget

TIMED = "parlour_redis_command_seconds_count"
FAILED = "parlour_redis_errors_total"


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _times(command: str) -> float:
    return _sample(TIMED, command=command)


def _failures(error: str) -> float:
    return _sample(FAILED, error=error)


@pytest.fixture
async def connection(redis_target: RedisTarget) -> AsyncIterator[RedisConnection]:
    """The server's own client for the target (the cluster client on the cluster)."""
    if redis_target.cluster_seeds:
        opened = open_redis(None, Path(tempfile.mkdtemp()), redis_target.cluster_seeds)
    else:
        opened = open_redis(redis_target.url, Path(tempfile.mkdtemp()))
    await opened.client.ping()  # connected (the cluster client learns its slots) before counting starts
    yield opened
    await opened.close()


@pytest.fixture
def key() -> str:
    """A key of this test's own, hash-tagged so that every key built from it is in one cluster slot."""
    return f"parlour-test-metrics:{{{uuid.uuid4().hex[:12]}}}"


async def test_each_command_is_timed_once(connection: RedisConnection, key: str) -> None:
    client = connection.client
    try:
        await client.set(key, "1", ex=60)
        before = _times("GET")
        assert await client.get(key) == b"1"
        assert _times("GET") - before == 1
    finally:
        await client.delete(key)


async def test_a_pipeline_is_one_round_trip_timed_as_the_commands_it_carries(
    connection: RedisConnection, key: str
) -> None:
    client = connection.client
    label = "PIPELINE SET+GET"
    before, singles = _times(label), _times("SET") + _times("GET")
    try:
        async with client.pipeline(transaction=False) as pipe:
            pipe.set(key, "1", ex=60)
            pipe.get(key)
            pipe.get(key + ":other")
            assert await pipe.execute() == [True, b"1", None]
        assert _times(label) - before == 1
        assert _times("SET") + _times("GET") == singles  # not counted again one by one
    finally:
        await client.delete(key)


async def test_a_failed_command_is_counted_once_by_its_error_class(connection: RedisConnection, key: str) -> None:
    client = connection.client
    try:
        await client.set(key, "not a list", ex=60)
        before = _failures("ResponseError")
        with pytest.raises(ResponseError, match="WRONGTYPE"):
            await client.lpush(key, "x")
        assert _failures("ResponseError") - before == 1
    finally:
        await client.delete(key)


async def test_an_append_waiting_for_replicas_is_counted_as_one_round_trip(
    connection: RedisConnection, key: str
) -> None:
    """The script and its WAIT go together (``--replica-acks``): one round trip, timed as both. Asking for
    more replicas than the target has makes WAIT give up after its timeout, which changes nothing here."""
    client = connection.client
    script = client.register_script("redis.call('SET', KEYS[1], ARGV[1], 'EX', 60) return 1")
    await client.script_load(script.script)
    runner = ScriptRunner(client, script, acks=5, timeout_ms=10)
    label = "PIPELINE EVALSHA+WAIT"
    before = _times(label)
    try:
        with pytest.raises(StoreUnavailableError, match="not copied to enough Redis replicas"):
            await runner([key], ["1"])
        assert _times(label) - before == 1
        assert await client.get(key) == b"1"
    finally:
        await client.delete(key)
