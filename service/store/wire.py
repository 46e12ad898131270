"""The bytes between the server and Redis: redis-py's asyncio connections, with the command path made cheaper.

redis-py's asyncio connection packs every command in pure Python (its synchronous client uses hiredis for
that when hiredis is installed) and bounds every write with ``asyncio.wait_for``, which on Python 3.11
wraps the write in a task of its own: a task and an extra turn of the event loop per command. The
connections here pack with ``hiredis.pack_command`` and bound the write with an ``asyncio.timeout`` scope
instead; everything else (connecting, reading, errors, reconnecting) is redis-py's own. Measured with
``bench/server.py``: the Redis client's share of the server's time per command.

They are also where :mod:`service.metrics` learns about Redis, because every round trip the server makes
passes through them, whoever made it: a command or a pipeline of a single-Redis client, a cluster node's
command or batch (the append and its WAIT with ``--replica-acks``), a topology refresh, a connection's own
handshake. Each write of packed commands is one round trip; it is timed from the write to its last reply
under its command (``GET``), or, when it carries several, as ``PIPELINE`` and their names (``PIPELINE
EVALSHA+WAIT``). Blocking reads, which wait by design, are not timed. Each failure is counted once by its
error class: an error reply where it is read, a connection that fails (connecting, writing or reading)
where it fails; :func:`count_failure` lets a client count, once too, what failed before any round trip.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

import hiredis
from redis.asyncio.connection import AbstractConnection, Connection, SSLConnection, UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service import metrics

__all__ = ["FastConnection", "FastSSLConnection", "FastUnixConnection", "count_failure", "fast_connection_class"]

#: Commands that wait by design (with ``BLOCK``, for the stream reads): their time is not a round trip's.
_BLOCKING = frozenset({"BLPOP", "BRPOP", "BLMOVE", "BLMPOP", "BRPOPLPUSH", "BZPOPMIN", "BZPOPMAX", "BZMPOP"})
_BLOCKING_WITH_ARGUMENT = frozenset({"XREAD", "XREADGROUP"})
#: The attribute that marks an exception as counted by :func:`count_failure`.
_COUNTED = "_parlour_counted"


def count_failure(error: BaseException) -> None:
    """Count a failed Redis call under ``error``'s class, unless it (or the error it was raised from) has
    been counted already."""
    seen: BaseException | None = error
    for _ in range(8):  # the chain of causes, as far as a wrapped error goes
        if seen is None:
            break
        if getattr(seen, _COUNTED, False):
            return
        seen = seen.__cause__ or seen.__context__
    metrics.redis_error(error)
    with contextlib.suppress(AttributeError):  # an exception type without attributes of its own
        setattr(error, _COUNTED, True)


def _name(first: Any) -> str:
    """A command's name as the metrics label it (``"SCRIPT LOAD"``, ``"GET"``)."""
    if isinstance(first, (bytes, bytearray, memoryview)):
        return bytes(first).decode(errors="replace").upper()
    return str(first).upper()


def _blocking(name: str, args: tuple[Any, ...]) -> bool:
    if name in _BLOCKING:
        return True
    return name in _BLOCKING_WITH_ARGUMENT and ("BLOCK" in args or b"BLOCK" in args)


class _RoundTrip:
    """Commands written together, waiting for their replies."""

    __slots__ = ("label", "replies", "start", "timed")

    def __init__(self, names: list[str], timed: bool) -> None:
        self.label = names[0] if len(names) == 1 else "PIPELINE " + "+".join(dict.fromkeys(names))
        self.replies = len(names)
        self.timed = timed
        self.start = time.perf_counter()


class _FastCommands(AbstractConnection):
    """What the fast connections change: packing, the write's timeout, and the metrics of round trips."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """A connection as redis-py makes it, with nothing sent yet."""
        super().__init__(*args, **kwargs)
        #: The names of the commands packed since the last write, and whether any of them blocks.
        self._packed: list[str] = []
        self._packed_blocks = False
        self._batch = False
        #: Round trips written and not yet fully read, oldest first.
        self._in_flight: deque[_RoundTrip] = deque()

    def pack_commands(self, commands: Iterable[Iterable[Any]]) -> list[bytes]:
        """Several commands for one write (a pipeline), as redis-py packs them (one by one, below)."""
        self._packed, self._packed_blocks, self._batch = [], False, True
        try:
            return super().pack_commands(commands)
        finally:
            self._batch = False

    def pack_command(self, *args: Any) -> list[bytes]:
        """The command in the Redis protocol, packed by hiredis; the first argument may hold several words
        (``"CLIENT SETNAME"``), as redis-py allows. Raises DataError for an argument Redis cannot take."""
        first = args[0]
        name = _name(first)
        if not self._batch:
            self._packed, self._packed_blocks = [], False
        self._packed.append(name)
        self._packed_blocks = self._packed_blocks or _blocking(name, args)
        if isinstance(first, str):
            args = (*first.encode().split(), *args[1:])
        elif b" " in first:
            args = (*first.split(), *args[1:])
        try:
            return [hiredis.pack_command(tuple(_plain(arg) for arg in args))]
        except TypeError as error:
            raise DataError(f"a Redis command argument must be bytes, str, int or float: {error}") from error

    async def send_packed_command(self, command: bytes | str | Iterable[bytes], check_health: bool = True) -> None:
        """Send packed bytes, as redis-py does, but with the write bounded by a timeout scope (no task); the
        commands packed for it are one round trip, timed until its last reply is read."""
        names, blocks = self._packed, self._packed_blocks
        self._packed, self._packed_blocks = [], False  # the handshake below packs commands of its own
        try:
            if not self.is_connected:
                await self.connect_check_health(check_health=False)
            if check_health:
                await self.check_health()  # type: ignore[no-untyped-call]  # untyped in redis-py
        except Exception as error:
            count_failure(error)
            raise
        if isinstance(command, str):
            command = command.encode()
        chunks = [command] if isinstance(command, bytes) else command
        if names:
            self._in_flight.append(_RoundTrip(names, timed=not blocks))
        try:
            async with asyncio.timeout(self.socket_timeout):
                writer = self._writer
                assert writer is not None  # connected above
                writer.writelines(chunks)
                await writer.drain()
        except TimeoutError:
            await self.disconnect(nowait=True)
            timed_out = RedisTimeoutError("Timeout writing to socket")
            count_failure(timed_out)
            raise timed_out from None
        except OSError as error:
            await self.disconnect(nowait=True)
            failure = RedisConnectionError(f"Error while writing to socket: {error}")
            count_failure(failure)
            raise failure from error
        except BaseException as error:
            # A write cut short (cancelled, say) leaves the protocol out of step: drop the connection.
            await self.disconnect(nowait=True)
            if isinstance(error, Exception):
                count_failure(error)
            raise

    async def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True) -> None:
        """Connect as redis-py does; a failure to connect is counted (once, however it is reached)."""
        try:
            await super().connect_check_health(check_health=check_health, retry_socket_connect=retry_socket_connect)
        except Exception as error:
            count_failure(error)
            raise

    async def read_response(
        self,
        disable_decoding: bool = False,
        timeout: float | None = None,  # noqa: ASYNC109 - redis-py's own signature
        *,
        disconnect_on_error: bool = True,
        push_request: bool | None = False,
    ) -> Any:
        """Read one reply as redis-py does; the reply that completes a round trip ends its time."""
        try:
            response = await super().read_response(
                disable_decoding, timeout, disconnect_on_error=disconnect_on_error, push_request=push_request
            )
        except ResponseError as error:  # a reply, saying that its command failed
            count_failure(error)
            self._replied()
            raise
        except Exception as error:  # no reply: the connection failed (and was dropped)
            count_failure(error)
            self._in_flight.clear()
            raise
        except BaseException:
            self._in_flight.clear()
            raise
        if response is None and timeout is not None:
            return response  # no reply within the time asked for (a wait, not a round trip)
        self._replied()
        return response

    def _replied(self) -> None:
        """One more reply of the oldest round trip is in."""
        if not self._in_flight:
            return
        trip = self._in_flight[0]
        trip.replies -= 1
        if trip.replies <= 0:
            self._in_flight.popleft()
            if trip.timed:
                metrics.redis_call(trip.label, time.perf_counter() - trip.start)

    async def disconnect(self, *args: Any, **kwargs: Any) -> None:
        """Disconnect as redis-py does; replies still awaited will never come."""
        self._in_flight.clear()
        await super().disconnect(*args, **kwargs)


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
