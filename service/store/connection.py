"""Opening Redis: a Redis Cluster from seed nodes, the server at a given URL, or a private embedded one when
neither is given.

All three give a ``redis.asyncio`` client with the same commands to the same store code (the cluster
client routes each command or script to the node of its keys' slot). The embedded server keeps its data
(append-only file on) under a local directory, so a restart loses nothing; while the server runs,
:meth:`RedisConnection.supervise` starts it again on the same directory if it dies.

Every client fails fast while Redis is away (connect timeout ``_CONNECT_TIMEOUT_S``) and, when a pooled
connection turns out to be broken, reconnects and retries the command once, so the first call after
Redis returns succeeds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.crc import REDIS_CLUSTER_HASH_SLOTS
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    ClusterError,
    MasterDownError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.embedded import RedisProcess
from service.store.failures import StoreUnavailableError, treat_as_unavailable
from service.store.wire import count_failure, fast_connection_class

__all__ = [
    "REDIS_UNAVAILABLE",
    "ClusterClient",
    "MeasuredRedis",
    "RedisClient",
    "RedisConnection",
    "closed_as_connection_error",
    "learn_slots",
    "open_redis",
    "parse_seeds",
    "unavailable",
]


#: The client type the stores take: a single Redis or a Redis Cluster (same command methods).
RedisClient = aioredis.Redis


async def closed_as_connection_error(command: Awaitable[Any]) -> Any:
    """Await a client command; a write on a connection whose transport has already closed (uvloop raises
    RuntimeError "unable to perform operation on <TCPTransport closed=True ...>" where asyncio's loop drops
    the write and the read then fails) is reported as the ConnectionError it is, so the call counts as the
    store being unreachable (UNAVAILABLE, safe to retry) rather than as a bug."""
    try:
        return await command
    except RuntimeError as error:
        if "closed" not in str(error):
            raise
        raise RedisConnectionError("the connection to Redis closed under a command") from error


class MeasuredRedis(aioredis.Redis):
    """A ``redis.asyncio`` client for one Redis, on the connections of :mod:`service.store.wire` (see
    :func:`open_redis`), which time every round trip and count its failures for :mod:`service.metrics`.
    The client itself counts only what fails before reaching a connection (once: never a failure its
    connection counted already)."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Run one command as the base client does."""
        try:
            return await closed_as_connection_error(super().execute_command(*args, **options))  # type: ignore[no-untyped-call]  # untyped in redis-py
        except RedisError as error:
            count_failure(error)
            raise

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        """A pipeline whose failures are counted as the client's are."""
        return _MeasuredPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)


class _MeasuredPipeline(Pipeline):
    """redis-py's pipeline; what fails before reaching its connection is counted (once)."""

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        """Send the queued commands as the base pipeline does."""
        try:
            return await super().execute(raise_on_error)
        except RedisError as error:
            count_failure(error)
            raise


_MAX_CONNECTIONS = 2000  # live tails share one; each connected bot holds one (at most --max-streams)
_CONNECT_TIMEOUT_S = 1.0
#: Longer than the tails' blocking reads (1 s), short enough that a hung Redis fails calls soon.
_SOCKET_TIMEOUT_S = 5.0
_SUPERVISE_S = 0.5

log = structlog.get_logger("parlour.redis")


def _retry() -> Retry:
    """Reconnect and retry once, after a short pause: a broken pooled connection costs one retry, a Redis
    that is away fails the call within about a second."""
    return Retry(ExponentialBackoff(cap=0.2, base=0.05), retries=1)


_RETRY_ON = [RedisConnectionError, RedisTimeoutError]

#: Redis client errors that mean Redis is not reachable now (a retry may succeed).
REDIS_UNAVAILABLE: tuple[type[BaseException], ...] = (
    StoreUnavailableError,
    RedisConnectionError,  # refused, reset, closed
    RedisTimeoutError,
    BusyLoadingError,  # restarting: still loading its files
    ClusterDownError,  # a slot has no master (a failover in progress)
    ClusterError,  # the cluster client ran out of redirections or nodes
    MasterDownError,
    ReadOnlyError,  # a write reached a master that has just become a replica
    TryAgainError,
)


def unavailable(error: BaseException) -> bool:
    """True when ``error`` from the Redis client means Redis is not reachable now."""
    return isinstance(error, REDIS_UNAVAILABLE)


def _raised_in_redis_py(error: BaseException) -> bool:
    """Whether ``error`` was raised inside the redis-py package itself (not in our code)."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return frame is not None and f"{os.sep}redis{os.sep}" in frame.tb_frame.f_code.co_filename


async def learn_slots(client: RedisCluster) -> None:
    """Make ``client`` read the cluster's slots and nodes again (its map may have a slot with no master:
    read during a failover); raises as redis-py does when no node answers."""
    await client.nodes_manager.initialize()


def _uncovered_slot(error: BaseException) -> bool:
    """Whether redis-py failed because its map of the slots has none for a command's key (it raises
    KeyError for a slot missing from the map, SlotNotCoveredError for one without nodes)."""
    return isinstance(error, SlotNotCoveredError) or (isinstance(error, KeyError) and _raised_in_redis_py(error))


class ClusterClient(RedisCluster):
    """redis-py's cluster client, but a connection closed under a command by the client's own topology
    refresh during a failover (redis-py then fails with AttributeError on the closed connection) is
    reported as the ConnectionError it is, so the call fails as UNAVAILABLE and may be retried; and a
    command whose key's slot has no master in the client's map (read during a failover; redis-py fails with
    KeyError or SlotNotCoveredError before sending anything) fails as UNAVAILABLE too, after the client has
    read the slots again, so that its retry finds the slot's master.

    Its nodes' connections are those of :mod:`service.store.wire` (see :func:`open_redis`), which time
    every round trip to every node and count its failures; the client itself counts only what fails
    without a round trip failing (a redirection too many, a slot no node serves), once."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run one command as the base client does."""
        try:
            return await closed_as_connection_error(super().execute_command(*args, **kwargs))
        except (KeyError, SlotNotCoveredError) as error:
            if not _uncovered_slot(error):
                raise
            with contextlib.suppress(Exception):  # the next call finds the slot's master (or fails alike)
                await learn_slots(self)
            unreachable = StoreUnavailableError()  # the standard sentence
            count_failure(unreachable)
            raise unreachable from error
        except AttributeError as error:
            if not _raised_in_redis_py(error):
                raise
            failure = RedisConnectionError("a connection closed during a cluster topology change")
            failure.__cause__ = error  # counted once: where it failed, if its connection counted it
            count_failure(failure)
            raise failure from error
        except RedisError as error:
            count_failure(error)
            raise

    async def every_master_answers(self) -> bool:
        """Whether every master that serves slots answers a PING (all at once), and every slot has one.
        The masters are those the client knows (it learns the slots again after a node failed it, so a
        failover counts as not answering until the client has seen it; the next look sees the new master)."""
        await self.initialize()  # learns the slots, first or again after a failure
        slots = self.nodes_manager.slots_cache
        masters = {nodes[0].name: nodes[0] for nodes in slots.values() if nodes}
        if len(slots) < REDIS_CLUSTER_HASH_SLOTS or not masters:
            return False
        replies = await asyncio.gather(
            *(self.ping(target_nodes=node) for node in masters.values()), return_exceptions=True
        )
        return all(reply is True for reply in replies)

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> ClusterPipeline:
        """A pipeline whose failures are counted as the client's are."""
        if shard_hint:
            raise RedisClusterException("shard_hint is deprecated in cluster mode")
        return _MeasuredClusterPipeline(self, transaction)  # type: ignore[abstract]  # as redis-py makes its own


class _MeasuredClusterPipeline(ClusterPipeline):
    """redis-py's cluster pipeline; what fails without a round trip failing is counted (once)."""

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> list[Any]:
        """Send the queued commands as the base pipeline does."""
        try:
            return await super().execute(raise_on_error, allow_redirections)
        except RedisError as error:
            count_failure(error)
            raise


@dataclass
class RedisConnection:
    """An open client, a label for logs (never shown to clients), and the embedded server (if any)."""

    client: RedisClient
    url: str
    embedded: RedisProcess | None = field(default=None, repr=False)
    cluster: bool = False

    async def supervise(self) -> None:
        """While it runs: start the embedded Redis again on its data directory whenever it has died."""
        if self.embedded is None:
            return
        server = self.embedded
        while True:
            await asyncio.sleep(_SUPERVISE_S)
            if not server.running():
                log.warning("embedded Redis stopped; starting it again on the same data directory")
                # Started from this thread, not a worker thread: the child stops when the thread that
                # started it ends (PR_SET_PDEATHSIG), and this one lives as long as the server.
                with contextlib.suppress(RuntimeError):
                    server.start()

    async def ping(self) -> bool:
        """True when Redis answers: the single Redis, or, on a cluster, every master that serves slots
        (a PING through the cluster client would ask one node only, its default one)."""
        try:
            if isinstance(self.client, ClusterClient):
                return await self.client.every_master_answers()
            return bool(await self.client.ping())
        except Exception:  # any failure means not ready
            return False

    async def close(self) -> None:
        """Close the client; stop the embedded server (it writes its files) if this process started it."""
        await self.client.aclose()
        self.discard()

    def discard(self) -> None:
        """Stop the embedded server of a connection (no ``await`` needed)."""
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None


def parse_seeds(text: str) -> list[tuple[str, int]]:
    """``host:port,host:port`` as pairs. Raises ValueError naming the bad part."""
    seeds: list[tuple[str, int]] = []
    for part in (p.strip() for p in text.split(",")):
        host, _, port = part.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"a cluster seed must be host:port, not {part!r}")
        seeds.append((host, int(port)))
    if not seeds:
        raise ValueError("give at least one cluster seed as host:port")
    return seeds


def open_redis(
    url: str | None, data_dir: Path, cluster_seeds: str = "", *, max_connections: int | None = None
) -> RedisConnection:
    """A client for the cluster of ``cluster_seeds``, for ``url``, or, when both are empty, for an
    embedded Redis with its files in ``data_dir``; it opens at most ``max_connections`` connections (to
    each node of a cluster; None: 2000): live tails share one, each connected bot holds one while it waits."""
    treat_as_unavailable(*REDIS_UNAVAILABLE)
    max_connections = max_connections or _MAX_CONNECTIONS
    options: dict[str, Any] = {
        "socket_connect_timeout": _CONNECT_TIMEOUT_S,
        "socket_timeout": _SOCKET_TIMEOUT_S,
        "retry": _retry(),
        "retry_on_error": _RETRY_ON,
    }
    if cluster_seeds:
        nodes = [ClusterNode(host, port) for host, port in parse_seeds(cluster_seeds)]
        cluster = ClusterClient(startup_nodes=nodes, max_connections=max_connections, **options)
        _use_fast_cluster_connections(cluster)
        # The cluster client has the same command methods as a single-node client.
        return RedisConnection(client=cluster, url=f"cluster {cluster_seeds}", cluster=True)  # type: ignore[arg-type]  # the cluster client has the same command methods as a single-node client
    if url:
        client = MeasuredRedis.from_url(url, max_connections=max_connections, **options)
        _use_fast_connections(client)
        return RedisConnection(client=client, url=url)
    server = RedisProcess(data_dir)
    server.start()
    client = MeasuredRedis(unix_socket_path=server.socket_path, max_connections=max_connections, **options)
    _use_fast_connections(client)
    return RedisConnection(client=client, url=f"embedded in {data_dir}", embedded=server)


def _use_fast_connections(client: aioredis.Redis) -> None:
    """Make the pool of a client that has not connected yet open :mod:`service.store.wire`'s connections
    (the same kind, TCP, TLS or Unix socket, that the URL asked for)."""
    pool = client.connection_pool
    pool.connection_class = fast_connection_class(pool.connection_class)


def _use_fast_cluster_connections(cluster: RedisCluster) -> None:
    """The same for a cluster client that has not connected yet: its seed nodes and every node it finds
    later (redis-py's cluster client takes no connection class of its own; it reads it from these)."""
    kwargs = cluster.nodes_manager.connection_kwargs
    kwargs["connection_class"] = fast_connection_class(kwargs["connection_class"])
    for node in cluster.nodes_manager.startup_nodes.values():
        node.connection_class = kwargs["connection_class"]
