"""A connection whose transport closed under the client (a Redis node killed, a failover) fails a call as
the store being unreachable (UNAVAILABLE, retried safely with the same command id), never as a bug.

``parlour serve`` runs on uvloop, where writing on such a connection raises RuntimeError (asyncio's loop
drops the write and the read fails with ConnectionError instead); a cluster client writes on the
connection it holds without checking it first, so this is what a failover does to it. The tests run
their own uvloop loop on the session's Redis Cluster.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest
import uvloop
from redis.asyncio.cluster import RedisCluster

from service.store.connection import REDIS_UNAVAILABLE, closed_as_connection_error, open_redis
from tests.conftest import RedisTarget


def _on_uvloop(check: Any) -> Any:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(check)


async def _a_call_after_its_connection_closed(seeds: str, key: str) -> BaseException | None:
    """Open the server's cluster client, make one call, close the transport of the connection it then
    holds for that key's node, and make the next call: its error (None if it succeeded)."""
    connection = open_redis(None, Path(tempfile.mkdtemp()), seeds)
    client: RedisCluster = connection.client  # type: ignore[assignment]  # the cluster target's client is a RedisCluster
    try:
        await client.set(key, "1")
        node = client.get_node_from_key(key)
        assert node is not None
        for held in node._free:  # the connections the node reuses without checking them
            held._writer.transport.close()
        await asyncio.sleep(0.01)
        try:
            await client.get(key)
        except Exception as error:
            return error
        return None
    finally:
        await client.aclose()


def test_a_call_on_a_closed_cluster_connection_is_the_store_unreachable(redis_cluster: RedisTarget) -> None:
    error = _on_uvloop(_a_call_after_its_connection_closed(redis_cluster.cluster_seeds, "{closed-transport}k"))
    assert error is None or isinstance(error, REDIS_UNAVAILABLE), repr(error)


async def _raises(error: BaseException) -> None:
    raise error


async def test_only_a_closed_transport_is_taken_for_a_connection_error() -> None:
    closed = RuntimeError("unable to perform operation on <TCPTransport closed=True reading=False>; closed")
    with pytest.raises(REDIS_UNAVAILABLE):
        await closed_as_connection_error(_raises(closed))
    with pytest.raises(RuntimeError, match="a bug"):
        await closed_as_connection_error(_raises(RuntimeError("a bug")))
