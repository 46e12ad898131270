"""A server restart in the middle of a tournament loses no game and no result.

The server is a real `parlour serve` process. It is killed (SIGKILL: no chance to tidy up) while games of
a two-round tournament are running, and a new process is started on the same Redis and port. The bots
reconnect by themselves; the tournament ends with every scheduled game finished once, every game verifies
from its seed, and the standings count every game.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import tournament_service_pb2 as pb
from tests.conftest import RedisTarget, delete_prefix
from tests.tournaments.helpers import (
    BOT_KEY,
    assert_standings_match,
    create_and_register,
    free_port,
    serve_process,
    standings,
    start,
    tournament_events,
    verify_game,
)


async def _wait_for(target: str, tournament_id: str, done: int, seconds: float) -> pb.GetStandingsResponse:
    """Standings once at least ``done`` games are finished, or once the tournament is finished, or after
    ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        reply = await standings(target, tournament_id)
        finished = reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED
        if finished or reply.tournament.games_finished >= done or loop.time() > deadline:
            return reply
        await asyncio.sleep(0.02)


_ALL = 1_000  # more games than any test tournament has: wait for the end


async def test_a_tournament_survives_a_server_crash_and_restart(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    port = free_port()
    target = f"127.0.0.1:{port}"
    names = ["r-a", "r-b", "r-c", "r-d"]
    stop = asyncio.Event()
    bots: list[asyncio.Task[object]] = []
    try:
        async with serve_process(redis_target, key_prefix, port, tmp_path / "first") as first:
            tournament_id = await create_and_register(target, names, table_size=3, rounds=2)
            bots = [
                asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g), stop=stop))
                for n in names
            ]
            await start(target, tournament_id)
            before = await _wait_for(target, tournament_id, 2, seconds=60)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert 2 <= before.tournament.games_finished < 8, "the server was killed in the middle of the tournament"
        async with serve_process(redis_target, key_prefix, port, tmp_path / "second"):
            after = await _wait_for(target, tournament_id, _ALL, seconds=120)
            assert after.tournament.status == pb.TOURNAMENT_STATUS_FINISHED, after.tournament
            events = await tournament_events(target, tournament_id)
            games = [e.table_scheduled.game_id for e in events if e.HasField("table_scheduled")]
            verdicts = [await verify_game(target, game_id) for game_id in games]
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*bots, return_exceptions=True), timeout=30)
        await delete_prefix(redis_target.url, key_prefix)
    assert len(games) == len(set(games)) == 8, "each of the 8 tables was scheduled once"
    assert all(v.verified for v in verdicts), [v.message for v in verdicts if not v.verified]
    assert after.tournament.games_finished == 8
    assert {s.bot_name: s.games for s in after.standings} == dict.fromkeys(names, 6)
    assert_standings_match(list(after.standings), events)
