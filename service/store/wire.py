"""The bytes between the server and Redis: redis-py's asyncio connections, with the command path made cheaper.

redis-py's asyncio connection packs every command in pure Python (its synchronous client uses hiredis for
that when hiredis is installed) and bounds every write with ``asyncio.wait_for``, which on Python 3.11
wraps the write in a task of its own: a task and an extra turn of the event loop per command. The
connections here pack with ``hiredis.pack_command`` and bound the write with an ``asyncio.timeout`` scope
instead; everything else (connecting, reading, errors, reconnecting) is redis-py's own. Measured with
``bench/server.py``: the Redis client's share of the server's time per command.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import hiredis
from redis.asyncio.connection import AbstractConnection, Connection, SSLConnection, UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["FastConnection", "FastSSLConnection", "FastUnixConnection", "fast_connection_class"]


class _FastCommands(AbstractConnection):
    """What the fast connections change: packing and the write's timeout."""

    def pack_command(self, *args: Any) -> list[bytes]:
        """The command in the Redis protocol, packed by hiredis; the first argument may hold several words
        (``"CLIENT SETNAME"``), as redis-py allows. Raises DataError for an argument Redis cannot take."""
        first = args[0]
        if isinstance(first, str):
            args = (*first.encode().split(), *args[1:])
        elif b" " in first:
            args = (*first.split(), *args[1:])
        try:
            return [hiredis.pack_command(tuple(_plain(arg) for arg in args))]
        except TypeError as error:
            raise DataError(f"a Redis command argument must be bytes, str, int or float: {error}") from error

    async def send_packed_command(self, command: bytes | str | Iterable[bytes], check_health: bool = True) -> None:
        """Send packed bytes, as redis-py does, but with the write bounded by a timeout scope (no task)."""
        if not self.is_connected:
            await self.connect_check_health(check_health=False)
        if check_health:
            await self.check_health()  # type: ignore[no-untyped-call]  # untyped in redis-py
        if isinstance(command, str):
            command = command.encode()
        chunks = [command] if isinstance(command, bytes) else command
        try:
            async with asyncio.timeout(self.socket_timeout):
                writer = self._writer
                assert writer is not None  # connected above
                writer.writelines(chunks)
                await writer.drain()
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as error:
            await self.disconnect(nowait=True)
            raise RedisConnectionError(f"Error while writing to socket: {error}") from error
        except BaseException:
            # A write cut short (cancelled, say) leaves the protocol out of step: drop the connection.
            await self.disconnect(nowait=True)
            raise


def _plain(arg: Any) -> Any:
    """An argument hiredis packs as redis-py would: views and bytearrays as bytes."""
    return bytes(arg) if isinstance(arg, (bytearray, memoryview)) else arg


class FastConnection(_FastCommands, Connection):
    """A TCP connection with the cheaper command path."""


class FastSSLConnection(_FastCommands, SSLConnection):
    """A TLS connection with the cheaper command path."""


class FastUnixConnection(_FastCommands, UnixDomainSocketConnection):
    """A Unix socket connection with the cheaper command path."""


_FAST: dict[type[AbstractConnection], type[AbstractConnection]] = {
    Connection: FastConnection,
    SSLConnection: FastSSLConnection,
    UnixDomainSocketConnection: FastUnixConnection,
}


def fast_connection_class(base: type[AbstractConnection]) -> type[AbstractConnection]:
    """The fast counterpart of one of redis-py's connection classes (``base`` itself for any other)."""
    return _FAST.get(base, base)
