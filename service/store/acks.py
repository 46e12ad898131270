"""Running a write script and, when replica acknowledgements are asked for, Redis ``WAIT`` after it on the
same connection (WAIT counts the replicas that hold this connection's writes, so it must follow the write
on the connection that made it).

On a single Redis the script and its WAIT go in one pipeline; on a cluster both go to the master of the
script's slot in one batch on one of its connections. Either way the acknowledgement costs one round trip,
not two. :meth:`ScriptRunner.batch` sends several runs of the script the same way, in one round trip to one
node with one WAIT after them all (the group commit of :mod:`service.store.batching`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from redis.asyncio.cluster import ClusterNode, PipelineCommand, RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.connection import RedisClient, closed_as_connection_error, learn_slots
from service.store.failures import StoreUnavailableError

__all__ = ["Call", "ScriptRunner"]

#: What a client is told when its command is in Redis but not yet on enough replicas.
NOT_REPLICATED = (
    "the command was stored but not copied to enough Redis replicas in time; send it again with the same command id"
)


#: One run of the script: its keys and its arguments.
Call = tuple[Sequence[str], Sequence[Any]]
#: Replies of a cluster node that no longer serves a slot (a failover): the script did not run.
_MOVED = (MovedError, AskError, ClusterDownError, TryAgainError)


class ScriptRunner:
    """Runs one registered script; with ``acks`` > 0 waits (at most ``timeout_ms``) for that many
    replicas and raises StoreUnavailableError when fewer acknowledged."""

    def __init__(self, client: RedisClient, script: AsyncScript, acks: int = 0, timeout_ms: int = 2000) -> None:
        """``script`` is ``client.register_script(...)``."""
        self._redis = client
        self._script = script
        self._acks = acks
        self._timeout_ms = timeout_ms

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """The script's reply (after the replicas acknowledged, when asked)."""
        if self._acks <= 0:
            return await self._script(keys=list(keys), args=list(args))
        (reply,) = await self.batch(await self.node_of(keys[0]), [(keys, args)])
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def node_of(self, key: str) -> ClusterNode | None:
        """Where a run on ``key`` goes: on a cluster, the master of its slot (StoreUnavailableError when the
        client knows none, even after reading the slots again); on a single Redis, None (that Redis)."""
        if isinstance(self._redis, RedisCluster):
            return await self._master_of(key)
        return None

    async def batch(self, node: ClusterNode | None, calls: Sequence[Call]) -> list[Any]:
        """Run the script once per call, in order, each run its own atomic script, in one round trip to
        ``node`` (from :meth:`node_of`), with one WAIT after them all when acks are asked. Returns, per call,
        its reply or the error that is its alone: a script Redis does not know (it restarted or failed over)
        is loaded and the runs it refused are sent again; a run on a slot that moved (a failover) is
        StoreUnavailableError once the client has learnt the slots again; when fewer replicas than asked
        acknowledged, every run that replied is StoreUnavailableError. Raises StoreUnavailableError when the
        connection fails: then each run may or may not have happened."""
        replies = await self._send(node, calls)
        refused = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if refused:
            await self._redis.script_load(self._script.script)
            for i, reply in zip(refused, await self._send(node, [calls[i] for i in refused]), strict=True):
                replies[i] = reply
        return replies

    async def _send(self, node: ClusterNode | None, calls: Sequence[Call]) -> list[Any]:
        """One round trip: the runs, then WAIT when acks are asked; a reply or an error per run."""
        commands: list[tuple[Any, ...]] = [("EVALSHA", self._script.sha, len(k), *k, *a) for k, a in calls]
        if self._acks > 0:
            commands.append(("WAIT", self._acks, self._timeout_ms))
        replies = await self._round_trip(node, calls[0][0][0], commands)
        if self._acks <= 0:
            return replies
        *replies, acked = replies
        if isinstance(acked, Exception) or int(acked) < self._acks:
            return [reply if isinstance(reply, Exception) else _not_replicated(acked) for reply in replies]
        return replies

    async def _round_trip(self, node: ClusterNode | None, key: str, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Send ``commands`` together on one connection (to ``node`` on a cluster, which holds ``key``);
        their replies or errors, in order."""
        if node is None:
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for command in commands:
                        pipe.execute_command(*command)
                    return list(await closed_as_connection_error(pipe.execute(raise_on_error=False)))
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                raise StoreUnavailableError() from error
        batch = [PipelineCommand(i, *command) for i, command in enumerate(commands)]
        try:
            await node.execute_pipeline(batch)
        except (RedisConnectionError, RedisTimeoutError, OSError, AttributeError) as error:
            # AttributeError: the client's topology refresh closed this connection under us (redis-py then
            # finds its writer gone). Either way the runs may or may not have happened: retrying an append
            # with the same command id is safe.
            await self._refresh(key)
            raise StoreUnavailableError() from error
        results = [command.result for command in batch]
        if any(isinstance(result, _MOVED) for result in results):
            await self._refresh(key)  # the slot moved (a failover): learn the new master; a retry goes there
            results = [_moved(result) if isinstance(result, _MOVED) else result for result in results]
        return results

    async def _refresh(self, key: str) -> None:
        """Let the cluster client learn the slots again (after a failover): one command on ``key`` through
        it, whose own recovery re-reads the topology (under its own lock); a failure here changes nothing."""
        with contextlib.suppress(Exception):
            await self._redis.exists(key)

    async def _master_of(self, key: str) -> ClusterNode:
        """The cluster node that holds ``key``'s slot. A slot the client knows no master for (it read the
        slots during a failover) makes it read them again, once; still none is the store being away."""
        assert isinstance(self._redis, RedisCluster)
        try:
            return self._redis.get_node_from_key(key)
        except SlotNotCoveredError:
            pass
        try:
            await learn_slots(self._redis)
            return self._redis.get_node_from_key(key)
        except (RedisClusterException, RedisError, OSError) as error:
            raise StoreUnavailableError() from error


def _not_replicated(acked: Any) -> StoreUnavailableError:
    """The error of a run that replied when WAIT answered ``acked`` (too few replicas, or its own error)."""
    error = StoreUnavailableError(NOT_REPLICATED)
    if isinstance(acked, Exception):
        error.__cause__ = acked
    return error


def _moved(reply: Exception) -> StoreUnavailableError:
    """The error of a run a cluster node refused because the slot is no longer its own."""
    error = StoreUnavailableError()
    error.__cause__ = reply
    return error
