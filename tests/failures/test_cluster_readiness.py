"""Readiness on a Redis Cluster: while one master that serves slots does not answer, gRPC health and
``/readyz`` say NOT_SERVING (even though other nodes answer); when it answers again, SERVING.

The cluster is this test's own (3 masters, 3 replicas). The stopped master's replica is told not to take
over, so its slots stay without a master for as long as the test needs; and the master stopped is one the
server's cluster client does not send its keyless commands to (its default node), so a PING to that node
alone would not notice anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
from grpc_health.v1 import health_pb2

from service.bootstrap import App, build_app
from service.store.embedded import RedisProcess
from tests.cluster import Cluster, start_cluster
from tests.conftest import CLUSTER_SCHEME, RedisTarget, server_settings
from tests.failures.readiness import readyz, until_health

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[Cluster]:
    cluster = start_cluster(tmp_path / "cluster", start_port=41000)
    yield cluster
    cluster.stop()


@pytest.fixture
async def cluster_app(own_cluster: Cluster, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server on the cluster that asks the store whether it answers every 50 ms."""
    target = RedisTarget("own-cluster", CLUSTER_SCHEME + own_cluster.seeds)
    server = build_app(server_settings(target, key_prefix, tmp_path / "server", readiness_seconds=0.05))
    await server.start()
    yield server
    await server.stop(grace=0)


def _replica_of(cluster: Cluster, master: RedisProcess) -> RedisProcess:
    for node in cluster.nodes:
        client = redis.Redis(unix_socket_path=node.socket_path)
        try:
            replication = client.info("replication")
            if replication.get("role") == "slave" and int(replication.get("master_port", 0)) == master.port:
                return node
        finally:
            client.close()
    raise AssertionError(f"no replica follows the master on port {master.port}")


def _never_take_over(node: RedisProcess) -> None:
    client = redis.Redis(unix_socket_path=node.socket_path)
    try:
        client.config_set("cluster-replica-no-failover", "yes")
    finally:
        client.close()


async def test_readiness_says_not_serving_while_a_master_with_slots_is_away(
    cluster_app: App, own_cluster: Cluster
) -> None:
    await until_health(cluster_app, SERVING)
    assert await readyz(cluster_app) == (200, "SERVING")
    default = cluster_app.redis.client.get_default_node()  # type: ignore[attr-defined]  # the cluster client's
    victim = next(node for node in own_cluster.masters() if node.port != default.port)
    _never_take_over(_replica_of(own_cluster, victim))

    victim.stop()
    await until_health(cluster_app, NOT_SERVING)
    assert await readyz(cluster_app) == (503, "NOT_SERVING")

    victim.start()
    await asyncio.to_thread(own_cluster.wait_healthy)
    await until_health(cluster_app, SERVING)
    assert await readyz(cluster_app) == (200, "SERVING")
