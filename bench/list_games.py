"""ListGames benchmark: the cost of one page as the number of games grows.

Usage: python bench/list_games.py [--games N] [--redis URL] [--calls C]

Creates N games (default 100,000) through the store (``RedisEventStore.create``, one setup event each,
in batches), finishes one game in ten, then times ``Games.list_games`` C times (default 200) for: the first
page of all games, a page deep in the list (offset N/2), the first page of one game's games, and the first
page of one game's finished games. Before the index by game and status, and rank-based pages, a page cost
O(N) (the whole index was read for each page: 48 ms at 12,000 games); it should now stay flat as N grows.
Runs on an embedded Redis by default (``--redis URL``: that Redis, under a random key prefix whose keys
are deleted at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from pathlib import Path

from engines.registry import get_game
from parlour.v1 import game_pb2
from service.app.games import Games
from service.app.meta_fields import FINISHED
from service.app.records import new_meta
from service.store.connection import open_redis
from service.store.keys import Keys
from service.store.port import NewEvent
from service.store.redis_store import RedisEventStore

_GAMES = ("oldmen", "verraeter")


async def _populate(store: RedisEventStore, count: int) -> None:
    """``count`` games, alternating between two games; every tenth finished."""
    done = 0
    while done < count:
        batch = min(500, count - done)
        await asyncio.gather(*(_one(store, done + i) for i in range(batch)))
        done += batch


async def _one(store: RedisEventStore, index: int) -> None:
    game = get_game(_GAMES[index % 2])
    assert game is not None
    config = game.spec.config(4, {})
    meta = new_meta(game, config)
    if index % 10 == 0:
        meta["status"] = FINISHED
    await store.create(secrets.token_hex(8), meta, [NewEvent(b"")])


async def _time(label: str, calls: int, run: object) -> None:
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        await run()  # type: ignore[operator]  # each call is an async callable of its own signature
        samples.append((time.perf_counter() - start) * 1000)
    print(f"{label:<40} p50 {statistics.median(samples):6.2f} ms   max {max(samples):6.2f} ms")


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as data:
        redis = open_redis(args.redis, Path(data))
        prefix = f"parlour-bench-{secrets.token_hex(4)}"
        store = RedisEventStore(redis.client, Keys(prefix), clock_ms=lambda: time.time() * 1000)
        games = Games(store)
        try:
            start = time.perf_counter()
            await _populate(store, args.games)
            print(f"{args.games} games created in {time.perf_counter() - start:.1f} s")
            finished = game_pb2.GAME_STATUS_FINISHED
            deep = str(args.games // 2)
            await _time("first page, all games", args.calls, lambda: games.list_games("", 0, 50, ""))
            await _time(f"page at offset {deep}", args.calls, lambda: games.list_games("", 0, 50, deep))
            await _time("first page, one game", args.calls, lambda: games.list_games("oldmen", 0, 50, ""))
            await _time(
                "first page, one game, finished", args.calls, lambda: games.list_games("oldmen", finished, 50, "")
            )
        finally:
            async for key in redis.client.scan_iter(match=f"{prefix}:*", count=1000):
                await redis.client.delete(key)
            await store.close()
            await redis.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--redis", default="", help="Redis URL (default: an embedded Redis)")
    asyncio.run(main(parser.parse_args()))
