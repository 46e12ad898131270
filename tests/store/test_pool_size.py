"""The Redis pool follows ``--max-streams``: every connected bot holds a connection of its own while it
waits for assignments, so a process allowed more streams than the pool has connections would answer
"Too many connections" again. The pool is the stream limit plus a margin for commands and shared tails."""

from __future__ import annotations

from pathlib import Path

from service.bootstrap import REDIS_POOL_MARGIN, build_app, redis_pool_size
from service.config import Settings
from tests.conftest import RedisTarget, delete_prefix, server_settings


def test_the_pool_is_the_stream_limit_and_a_margin() -> None:
    assert redis_pool_size(Settings()) == Settings().max_streams + REDIS_POOL_MARGIN == 2000
    assert redis_pool_size(Settings(max_streams=5000)) == 6000
    assert redis_pool_size(Settings(max_streams=0)) is None  # no stream limit: the store's default pool


async def test_a_server_allowed_5000_streams_has_a_pool_of_6000(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """On a single Redis its pool, on a cluster the pool of each node."""
    app = build_app(server_settings(redis_target, key_prefix, tmp_path, max_streams=5000))
    await app.start()
    try:
        if redis_target.cluster_seeds:
            assert app.redis.client.nodes_manager.connection_kwargs["max_connections"] == 6000
        else:
            assert app.redis.client.connection_pool.max_connections == 6000
    finally:
        await app.stop(grace=0)
        await delete_prefix(redis_target.url, key_prefix)
