"""A bot outlives the games it played: once retention deletes a finished game, the bot still connects,
lists its assignments and plays the next game it is given."""

from __future__ import annotations

import asyncio
import time

import grpc

from parlour.bots import make_bot
from parlour.runner import BotRun, run_bot
from parlour.v1 import bot_service_pb2 as pb
from parlour.v1 import bot_service_pb2_grpc as pb_grpc
from service.app.retention import Retention, RetentionSettings
from service.bootstrap import App
from service.store.bots import RedisBots
from service.store.keys import Keys
from tests.tournaments.helpers import BOT_KEY, create_and_register, start

BOTS = ["keeper-a", "keeper-b", "keeper-c"]
HOUR_MS = 3_600_000


async def _one_game_each(target: str) -> list[BotRun]:
    """A one-table tournament of BOTS, each bot running until its game has ended."""
    tid = await create_and_register(target, BOTS, table_size=3)
    runs = [
        asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g, seed=3), max_games=1))
        for n in BOTS
    ]
    await start(target, tid)
    return list(await asyncio.wait_for(asyncio.gather(*runs), 60))


async def _assignments(target: str, name: str) -> list[pb.Assignment]:
    async with grpc.aio.insecure_channel(target) as channel:
        reply = await pb_grpc.BotServiceStub(channel).ListAssignments(
            pb.ListAssignmentsRequest(bot_name=name), metadata=[("x-parlour-bot-key", BOT_KEY)]
        )
    return list(reply.assignments)


async def test_a_bot_plays_its_next_game_after_retention_deleted_its_last_one(admin_app: App) -> None:
    """The first tournament's game expires (deleted with its seat tokens); every bot then lists no
    assignments (not NOT_FOUND), connects again, and plays the second tournament's game to its end; the
    deleted game's assignment is no longer kept for the bot."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    (first,) = {game_id for run in await _one_game_each(target) for game_id in run.ended}
    later = Retention(
        admin_app.games,
        admin_app.replays,
        lambda: int(time.time() * 1000) + 10 * HOUR_MS,
        RetentionSettings(abandon_after_hours=0, finished_ttl_hours=1),
    )
    assert (await later.run_once()).expired == [first]
    for name in BOTS:
        assert await _assignments(target, name) == []
    runs = await _one_game_each(target)
    (second,) = {game_id for run in runs for game_id in run.ended}
    assert second != first
    assert all(list(run.ended) == [second] for run in runs)
    assert all(run.connections == 1 for run in runs)  # no session ended under the bot
    store = RedisBots(admin_app.redis.client, Keys(admin_app.settings.key_prefix))
    for name in BOTS:
        assert [record.game_id for _, record in await store.assignments(name)] == [second]
