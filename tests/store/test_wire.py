"""The server's Redis connections (``service.store.wire``): on every kind of Redis the server opens, the
commands go through the hiredis packer and the task-free write, and they mean to Redis exactly what
redis-py's own packing means."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio.connection import Connection
from redis.exceptions import DataError

from service.store.connection import RedisConnection, open_redis
from service.store.wire import FastConnection, FastSSLConnection, FastUnixConnection
from tests.conftest import RedisTarget

_ARGUMENTS: list[tuple[Any, ...]] = [
    ("SET", "k", "v"),
    ("CLIENT SETNAME", "parlour"),  # several words in the first argument, as redis-py allows
    (b"CONFIG GET", b"maxmemory"),
    ("EVALSHA", "ab" * 20, 2, "k1", "k2", 0, -17, 2.5, 1e20, 10**19),
    ("SET", "ünïcode", "välue"),
    ("SET", b"\x00\xffbinary", bytearray(b"\r\n"), memoryview(b"view")),
    ("SET", "big", b"x" * 100_000),  # above redis-py's buffer cutoff, where it splits the output
]


@pytest.mark.parametrize("args", _ARGUMENTS, ids=lambda args: str(args[0]))
def test_commands_are_packed_as_redis_py_packs_them(args: tuple[Any, ...]) -> None:
    assert b"".join(FastConnection().pack_command(*args)) == b"".join(Connection().pack_command(*args))


@pytest.mark.parametrize("bad", [None, True, object()], ids=["None", "bool", "object"])
def test_an_argument_redis_cannot_take_is_refused_before_sending(bad: Any) -> None:
    with pytest.raises(DataError, match="must be bytes, str, int or float"):
        FastConnection().pack_command("SET", "k", bad)


def _open(target: RedisTarget) -> RedisConnection:
    if target.cluster_seeds:
        return open_redis(None, Path(tempfile.mkdtemp()), target.cluster_seeds)
    return open_redis(target.url, Path(tempfile.mkdtemp()))


def _connection_classes(connection: RedisConnection) -> set[type]:
    client: Any = connection.client
    if connection.cluster:
        return {node.connection_class for node in client.get_nodes()}
    return {client.connection_pool.connection_class}


async def test_every_server_connection_is_a_fast_one_and_round_trips_values(redis_target: RedisTarget) -> None:
    connection = _open(redis_target)
    key = f"parlour-test-wire-{uuid.uuid4().hex[:8]}"
    try:
        value = "välue\r\n".encode() + bytes(range(256))
        assert await connection.client.set(key, value, ex=60)
        assert await connection.client.get(key) == value
        assert await connection.client.eval("return {ARGV[1], ARGV[2]}", 1, key, 2.5, -3) == [b"2.5", b"-3"]
        assert _connection_classes(connection) <= {FastConnection, FastSSLConnection, FastUnixConnection}
    finally:
        await connection.client.delete(key)
        await connection.close()


def test_the_embedded_redis_is_reached_over_a_fast_unix_socket_connection() -> None:
    connection = open_redis(None, Path(tempfile.mkdtemp()))
    try:
        assert _connection_classes(connection) == {FastUnixConnection}
    finally:
        connection.discard()
