"""An append waiting for replica acknowledgements on a Redis Cluster (``--replica-acks``) goes to the master
of its key's slot through the cluster client's map of the slots. During a failover that map can have a slot
with no master (the client read the slots while a master was being replaced): the append makes the client
learn the slots again and goes on, instead of failing as a server error; any other command there fails as
the store being away, and its retry finds the slot's master."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.store.acks import ScriptRunner
from service.store.connection import RedisConnection, open_redis
from service.store.failures import StoreUnavailableError, is_unavailable
from tests.conftest import RedisTarget


@pytest.fixture
async def cluster(redis_cluster: RedisTarget) -> AsyncIterator[RedisConnection]:
    """The server's own cluster client, with the slots learnt."""
    opened = open_redis(None, Path(tempfile.mkdtemp()), redis_cluster.cluster_seeds)
    await opened.client.ping()
    yield opened
    await opened.close()


async def test_an_acknowledged_write_learns_an_uncovered_slot_again(cluster: RedisConnection) -> None:
    client = cluster.client
    key = f"parlour-test-slots:{{{uuid.uuid4().hex[:12]}}}"
    runner = ScriptRunner(client, client.register_script("return redis.call('INCR', KEYS[1])"), acks=1)
    try:
        assert await runner([key], []) == 1
        slot = client.keyslot(key)  # type: ignore[attr-defined]  # RedisCluster's own
        client.nodes_manager.slots_cache.pop(slot)  # type: ignore[attr-defined]  # as read mid-failover
        assert await runner([key], []) == 2  # run once, on the slot's master
        assert client.nodes_manager.slots_cache.get(slot), "the client learnt the slot's master again"  # type: ignore[attr-defined]  # RedisCluster's own attribute, missing from its stubs
    finally:
        await client.delete(key)


async def test_a_command_on_an_uncovered_slot_is_unavailable_and_its_retry_succeeds(cluster: RedisConnection) -> None:
    """Any other command on a slot the client knows no master for fails as the store being away (nothing was
    sent), and the client reads the slots again, so the same command then succeeds."""
    client = cluster.client
    key = f"parlour-test-slots:{{{uuid.uuid4().hex[:12]}}}"
    try:
        client.nodes_manager.slots_cache.pop(client.keyslot(key))  # type: ignore[attr-defined]  # RedisCluster's own attribute, missing from its stubs
        with pytest.raises(StoreUnavailableError) as refused:
            await client.set(key, b"1")
        assert is_unavailable(refused.value)
        assert await client.get(key) is None  # the refused SET never ran
        assert await client.set(key, b"1") is True
    finally:
        await client.delete(key)
