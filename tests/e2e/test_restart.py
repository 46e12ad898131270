"""The embedded Redis keeps its data on disk: a restarted server still has every game, and the snapshot
plus the events after it rebuild the state."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parlour.bots import RandomBot
from parlour.client import GameClient
from parlour.play import play_seat
from parlour.v1 import game_pb2
from service.bootstrap import build_app
from service.config import Settings
from tests.e2e.helpers import seated_game


def _embedded(data_dir: Path) -> Settings:
    return Settings(
        grpc_host="127.0.0.1", grpc_port=0, http_port=0, data_dir=data_dir, log_level="warning", snapshot_every=16
    )


async def test_a_restarted_server_has_every_game_and_can_finish_it(tmp_path: Path) -> None:
    """Games survive a restart of the server and its embedded Redis, mid-game, and play on to the end."""
    app = build_app(_embedded(tmp_path))
    await app.start()
    async with GameClient(f"127.0.0.1:{app.grpc_port}") as client:
        game = await seated_game(client, seed=b"restart")
        view = await client.view(game.game_id)
        for _ in range(25):
            seat = view.pending_seats[0]
            own = await client.view(game.game_id, seat, game.tokens[seat])
            await client.submit(game.game_id, seat, game.tokens[seat], own.legal_commands[0])
            view = await client.view(game.game_id)
        before = view.version
    await app.stop(grace=0)

    again = build_app(_embedded(tmp_path))
    await again.start()
    try:
        async with GameClient(f"127.0.0.1:{again.grpc_port}") as client:
            assert (await client.view(game.game_id)).version == before
            assert await again.store.load_snapshot(game.game_id) is not None
            bots = [play_seat(client, game.game_id, s, t, RandomBot(s)) for s, t in enumerate(game.tokens)]
            await asyncio.wait_for(asyncio.gather(*bots), 60)
            assert (await client.game(game.game_id)).status == game_pb2.GAME_STATUS_FINISHED
    finally:
        await again.stop(grace=0)
