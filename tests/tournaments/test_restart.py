"""A server restart in the middle of a tournament loses no game and no result."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import tournament_service_pb2 as pb
from service.bootstrap import build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY, create_and_register, standings, start


async def test_a_tournament_survives_a_server_restart(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """The server stops while games of a two-round tournament are running; a new server on the same Redis
    (and port) resumes the scheduler, the bots reconnect, and every scheduled game ends with exactly one
    recorded result; the standings count all games."""
    settings = server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY)
    first = build_app(settings)
    await first.start()
    target = f"127.0.0.1:{first.grpc_port}"
    names = ["r-a", "r-b", "r-c", "r-d"]
    try:
        tid = await create_and_register(target, names, table_size=3, rounds=2)
        bots = [
            asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g), max_games=6))
            for n in names
        ]
        await start(target, tid)
        for _ in range(600):
            reply = await standings(target, tid)
            if reply.tournament.games_finished >= 2:
                break
            await asyncio.sleep(0.01)
        assert 2 <= reply.tournament.games_finished < 8, "stopped in the middle"
        await first.stop(grace=0)
        second = build_app(replace(settings, grpc_port=first.grpc_port))
        await second.start()
        try:
            await asyncio.wait_for(asyncio.gather(*bots), timeout=120)
            for _ in range(100):
                reply = await standings(target, tid)
                if reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED:
                    break
                await asyncio.sleep(0.1)
            assert second.tournaments is not None
            state = await second.tournaments.load(tid)
        finally:
            await second.stop(grace=0)
    finally:
        await delete_prefix(redis_target.url, key_prefix)
    assert reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED
    assert len(state.tables) == 8 and state.finished == set(state.tables)
    assert {s.bot_name: s.games for s in reply.standings} == dict.fromkeys(names, 6)
