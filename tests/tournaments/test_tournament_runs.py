"""A tournament of bots over the network runs to completion, and its standings match its games."""

from __future__ import annotations

import asyncio

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import tournament_service_pb2 as pb
from service.bootstrap import App
from tests.tournaments.helpers import (
    BOT_KEY,
    assert_standings_match,
    create_and_register,
    standings,
    start,
    tournament_events,
    verify_game,
)


async def test_four_bots_play_a_round_robin_to_the_end(admin_app: App) -> None:
    """Four bots (random and greedy) connect over gRPC, play every scheduled game, and the standings
    count each game once per bot, with rank points and ratings from the results; every game verifies
    from its revealed seed."""
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
    events = await tournament_events(target, tid)
    game_ids = {game_id for run in results for game_id in run.ended}
    assert game_ids == {e.table_finished.game_id for e in events if e.HasField("table_finished")}
    assert len(game_ids) == 4
    for game_id in game_ids:
        verdict = await verify_game(target, game_id)
        assert verdict.verified, verdict.message
    assert_standings_match(list(reply.standings), events)
    assert all(s.rating_sigma < 25 / 3 for s in reply.standings)
    assert [s.rank for s in reply.standings] == sorted(s.rank for s in reply.standings)
