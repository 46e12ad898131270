"""A tournament of bots over the network runs to completion, and its standings match its games."""

from __future__ import annotations

import asyncio

from engines.registry import get_game
from parlour.bots import make_bot
from parlour.client import GameClient
from parlour.runner import run_bot
from parlour.v1 import tournament_service_pb2 as pb
from service.bootstrap import App
from tests.tournaments.helpers import BOT_KEY, create_and_register, standings, start


async def _replays(app: App, game_id: str) -> bool:
    """The stored log folds to a finished game whose result is the stored one."""
    stored = await app.store.read(game_id, 1, 100_000)
    engine = get_game("oldmen")
    assert engine is not None
    state = None
    for event in stored:
        state = engine.evolve(state, engine.event_type.FromString(event.data))
    return state is not None and engine.is_over(state)


async def test_four_bots_play_a_round_robin_to_the_end(admin_app: App) -> None:
    """Four bots (random and greedy) connect over gRPC, play every scheduled game, and the standings
    count each game once per bot, with rank points and ratings from the results."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    names = ["rand-a", "rand-b", "greedy-c", "greedy-d"]
    tid = await create_and_register(target, names, table_size=3, rounds=1)
    strategies = {"rand-a": "random", "rand-b": "random", "greedy-c": "greedy", "greedy-d": "greedy"}
    runs = [
        asyncio.create_task(
            run_bot(target, name, BOT_KEY, lambda game, s=strategies[name]: make_bot(s, game, seed=1), max_games=3)
        )
        for name in names
    ]
    await start(target, tid)
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=120)
    reply = await standings(target, tid)
    for _ in range(50):
        if reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED:
            break
        await asyncio.sleep(0.1)
        reply = await standings(target, tid)
    assert reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED
    assert reply.tournament.games_finished == 4  # C(4, 3) tables
    assert sorted(s.games for s in reply.standings) == [3, 3, 3, 3]
    assert all(len(run.ended) == 3 for run in results)
    points: dict[str, int] = dict.fromkeys(names, 0)
    async with GameClient(target) as client:
        game_ids = {game_id for run in results for game_id in run.ended}
        assert len(game_ids) == 4
        for game_id in game_ids:
            summary = await client.game(game_id)
            for result in summary.results:
                points[result.player_name] += 3 - result.rank
            assert await _replays(admin_app, game_id)
    assert {s.bot_name: s.rank_points for s in reply.standings} == points
    assert all(s.rating_sigma < 25 / 3 for s in reply.standings)
    assert [s.rank for s in reply.standings] == sorted(s.rank for s in reply.standings)
