"""Two server processes on one Redis: any of them serves any game, and a game never forks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engines.registry import get_game
from parlour.client import GameClient, ParlourError
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, server_settings
from tests.e2e.helpers import seated_game


@pytest.fixture
async def second(redis_target: RedisTarget, key_prefix: str, tmp_path: Path, app: App) -> AsyncIterator[App]:
    """Another server on the same Redis and key prefix as ``app``."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path / "second"))
    await server.start()
    yield server
    await server.stop(grace=0)


async def test_racing_servers_apply_exactly_one_of_two_commands(app: App, second: App) -> None:
    """The same seat sends different moves through two servers at once: one is applied, the other is
    refused, and the stored log replays to one consistent game."""
    async with GameClient(f"127.0.0.1:{app.grpc_port}") as one, GameClient(f"127.0.0.1:{second.grpc_port}") as two:
        game = await seated_game(one, seed=b"race")
        for _ in range(12):
            view = await one.view(game.game_id)
            seat = view.pending_seats[0]
            own = await two.view(game.game_id, seat, game.tokens[seat])
            choices = list(own.legal_commands)
            first, other = choices[0], choices[-1]
            results = await asyncio.gather(
                one.submit(game.game_id, seat, game.tokens[seat], first, expected_version=own.version),
                two.submit(game.game_id, seat, game.tokens[seat], other, expected_version=own.version),
                return_exceptions=True,
            )
            applied = [r for r in results if not isinstance(r, BaseException)]
            refused = [r for r in results if isinstance(r, ParlourError)]
            if first == other:
                continue
            assert len(applied) == 1 and len(refused) == 1, results
            assert refused[0].reason == "game/stale_version"
    stored = await app.store.read(game.game_id, 1, 10_000)
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    engine = get_game("oldmen")
    assert engine is not None
    state = None
    for event in stored:
        state = engine.evolve(state, engine.event_type.FromString(event.data))
    assert state is not None


async def test_a_server_catches_up_with_moves_made_through_another(app: App, second: App) -> None:
    """Moves alternate between servers without expected versions; each decides on the latest state."""
    async with GameClient(f"127.0.0.1:{app.grpc_port}") as one, GameClient(f"127.0.0.1:{second.grpc_port}") as two:
        game = await seated_game(one, seed=b"alternate")
        clients = [one, two]
        for move in range(30):
            client = clients[move % 2]
            view = await clients[(move + 1) % 2].view(game.game_id)
            seat = view.pending_seats[0]
            own = await client.view(game.game_id, seat, game.tokens[seat])
            reply = await client.submit(game.game_id, seat, game.tokens[seat], own.legal_commands[0])
            assert reply.version > view.version
        assert (await one.game(game.game_id)).version == (await two.game(game.game_id)).version
