"""Running a write script and, when replica acknowledgements are asked for, Redis ``WAIT`` after it on the
same connection (WAIT counts the replicas that hold this connection's writes, so it must follow the write
on the connection that made it).

On a single Redis both go in one pipeline; on a cluster both go to the master of the script's slot in one
batch on one of its connections. Either way the acknowledgement costs one round trip, not two.
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

from service.store.connection import RedisClient, learn_slots
from service.store.failures import StoreUnavailableError

__all__ = ["ScriptRunner"]

#: What a client is told when its command is in Redis but not yet on enough replicas.
NOT_REPLICATED = (
    "the command was stored but not copied to enough Redis replicas in time; send it again with the same command id"
)


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
        commands = [("EVALSHA", self._script.sha, len(keys), *keys, *args), ("WAIT", self._acks, self._timeout_ms)]
        replies = await self._batch(keys[0], commands)
        if isinstance(replies[0], NoScriptError):  # the server restarted or failed over: load it, once
            await self._redis.script_load(self._script.script)
            replies = await self._batch(keys[0], commands)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        reply, acked = replies
        if int(acked) < self._acks:
            raise StoreUnavailableError(NOT_REPLICATED)
        return reply

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

    async def _batch(self, key: str, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Send ``commands`` together on one connection to the node holding ``key``; replies or errors."""
        if isinstance(self._redis, RedisCluster):
            node = await self._master_of(key)
            batch = [PipelineCommand(i, *command) for i, command in enumerate(commands)]
            try:
                await node.execute_pipeline(batch)
            except (RedisConnectionError, RedisTimeoutError, OSError, AttributeError) as error:
                # AttributeError: the client's topology refresh closed this connection under us (redis-py
                # then finds its writer gone). Either way the append may or may not have run: retrying
                # with the same command id is safe.
                await self._refresh(key)
                raise StoreUnavailableError() from error
            results = [command.result for command in batch]
            if any(isinstance(r, (MovedError, AskError, ClusterDownError, TryAgainError)) for r in results):
                await self._refresh(key)  # the slot moved (a failover): learn the new master, then retry
                raise StoreUnavailableError()
            return results
        async with self._redis.pipeline(transaction=False) as pipe:
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute(raise_on_error=False))
