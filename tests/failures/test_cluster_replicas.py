"""Two server replicas on one Redis Cluster (3 masters, 3 replicas): games of every type are played with
each command sent to the other replica than the one before, a watcher on a third connection sees every
event exactly once and in order, and every finished game verifies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engines.registry import GAMES
from parlour.client import GameClient
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import SeatedGame, seated_game
from tests.tournaments.helpers import verify_game


@pytest.fixture
async def replicas(redis_cluster: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[list[App]]:
    """Two servers on the cluster, replica acks on (each command is on a Redis replica too)."""
    apps = [build_app(server_settings(redis_cluster, key_prefix, tmp_path / str(i), replica_acks=1)) for i in range(2)]
    for app in apps:
        await app.start()
    yield apps
    for app in apps:
        await app.stop(grace=0)
    await delete_prefix(redis_cluster.url, key_prefix)


async def _play(clients: list[GameClient], game: SeatedGame) -> int:
    """Play to the end, each command on the next replica; returns the last version."""
    turn = 0
    while True:
        client = clients[turn % len(clients)]
        view = await client.view(game.game_id)
        if not view.pending_seats:
            return view.version
        seat = view.pending_seats[0]
        mine = await client.view(game.game_id, seat, game.tokens[seat])
        await client.submit(
            game.game_id, seat, game.tokens[seat], mine.legal_commands[0], expected_version=mine.version
        )
        turn += 1


async def _watch(client: GameClient, game_id: str) -> list[int]:
    return [event.version async for event in client.watch(game_id, from_version=1)]


async def test_games_of_every_type_over_two_replicas_on_a_cluster(replicas: list[App]) -> None:
    clients = [GameClient(f"127.0.0.1:{app.grpc_port}") for app in replicas]
    try:
        for engine in GAMES:
            name = engine.spec.name
            game = await seated_game(clients[0], name, engine.spec.min_seats, seed=name.encode().ljust(16, b"-"))
            watcher = asyncio.create_task(_watch(clients[1], game.game_id))
            last = await _play(clients, game)
            assert await asyncio.wait_for(watcher, 60) == list(range(1, last + 1))
            verdict = await verify_game(f"127.0.0.1:{replicas[1].grpc_port}", game.game_id)
            assert verdict.verified, verdict.message
        finished = await clients[1].list_games(status=2)
        assert len(finished.games) == len(GAMES)
    finally:
        for client in clients:
            await client.close()
