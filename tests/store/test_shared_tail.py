"""Live tails share one Redis connection: watching many games at once holds one blocking read in Redis,
not one per game, so idle streams cannot exhaust the connection pool; every watcher still gets its
game's events."""

from __future__ import annotations

import asyncio

from redis.asyncio.cluster import RedisCluster

from parlour.client import GameClient
from parlour.v1 import game_service_pb2 as pb
from service.bootstrap import App
from service.store.keys import Keys
from tests.e2e.helpers import seated_game, stub


async def _blocked_reads(app: App) -> int:
    """How many connections to the test Redis (every node of a cluster) are blocked in an XREAD now (an
    idle connection whose last command was one does not count)."""
    redis = app.redis.client
    if isinstance(redis, RedisCluster):
        replies = await redis.client_list(target_nodes=RedisCluster.ALL_NODES)
        clients = [c for reply in replies.values() for c in reply] if isinstance(replies, dict) else replies
    else:
        clients = await redis.client_list()
    return sum(1 for c in clients if c.get("cmd") == "xread" and "b" in c.get("flags", ""))


def _allowed_reads(app: App, game_ids: list[str]) -> int:
    """One blocking read for every watched game: on a Redis Cluster one per slot of their keys (an XREAD
    may name keys of one slot only)."""
    redis = app.redis.client
    if not isinstance(redis, RedisCluster):
        return 1
    keys = Keys(app.settings.key_prefix)
    return len({redis.keyslot(keys.log(g)) for g in game_ids})


async def test_thirty_watched_games_hold_one_blocking_read(app: App) -> None:
    """The test Redis is shared with the rest of the session, so blocked reads are counted before and
    while this server's games are watched."""
    target = f"127.0.0.1:{app.grpc_port}"
    async with GameClient(target) as client:
        games = [await seated_game(client, seats=3, seed=f"tail-{n}".encode()) for n in range(30)]
        before = await _blocked_reads(app)
        channel, service = stub(target)
        async with channel:
            calls = []
            for game in games:
                call = service.WatchGame(pb.WatchGameRequest(game_id=game.game_id, from_version=1))
                await call.read()  # the history has started: the game is tailed
                calls.append(call)
            await asyncio.sleep(0.2)  # the shared reader is back in its blocking read
            blocked = await _blocked_reads(app)
            assert blocked - before <= _allowed_reads(app, [g.game_id for g in games]), (before, blocked)
            first = games[0]
            view = await client.view(first.game_id, 0, first.tokens[0])
            seat = view.pending_seats[0]
            view = await client.view(first.game_id, seat, first.tokens[seat])
            command = view.legal_commands[0]
            await client.submit(first.game_id, seat, first.tokens[seat], command, expected_version=view.version)
            while True:  # the move arrives live on the first game's stream
                reply = await asyncio.wait_for(calls[0].read(), 10)
                if reply.event.version > view.version:
                    break
            for call in calls:
                call.cancel()
