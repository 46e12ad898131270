"""Live tails share one Redis connection: watching many games at once holds one blocking read in Redis,
not one per game, so idle streams cannot exhaust the connection pool; every watcher still gets its
game's events."""

from __future__ import annotations

import asyncio

from parlour.client import GameClient
from parlour.v1 import game_service_pb2 as pb
from service.bootstrap import App
from tests.e2e.helpers import seated_game, stub


async def test_thirty_watched_games_hold_one_blocking_read(app: App) -> None:
    target = f"127.0.0.1:{app.grpc_port}"
    async with GameClient(target) as client:
        games = [await seated_game(client, seats=3, seed=f"tail-{n}".encode()) for n in range(30)]
        channel, service = stub(target)
        async with channel:
            calls = []
            for game in games:
                call = service.WatchGame(pb.WatchGameRequest(game_id=game.game_id, from_version=1))
                await call.read()  # the history has started: the game is tailed
                calls.append(call)
            blocked = [c for c in await app.redis.client.client_list() if c.get("cmd") == "xread"]
            assert len(blocked) <= 1, len(blocked)
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
