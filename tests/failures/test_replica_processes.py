"""Several `parlour serve` processes on one Redis Cluster (3 masters, 3 replicas, ``--replica-acks 1``).

- Games of every type, each command sent to another replica than the one before, a watcher on a third:
  it sees every event once, in order; every finished game verifies.
- A replica is killed (SIGKILL) in the middle of games played through the SDK with all replicas'
  addresses: the games finish on the others, every acknowledged command is in the log once.
- The replica that runs a tournament's scheduler is killed: another takes it over through the lease, the
  tournament finishes, every scheduled game once, standings complete.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from engines.registry import GAMES
from parlour.bots import make_bot
from parlour.client import GameClient
from parlour.runner import run_bot
from parlour.v1 import tournament_service_pb2 as pb
from tests.conftest import RedisTarget, delete_prefix
from tests.e2e.helpers import SeatedGame, seated_game
from tests.failures.replicas import serve
from tests.tournaments.helpers import (
    BOT_KEY,
    assert_standings_match,
    create_and_register,
    standings,
    start,
    tournament_events,
    verify_game,
)


@pytest.fixture
async def cleanup(redis_cluster: RedisTarget, key_prefix: str) -> AsyncIterator[None]:
    yield
    await delete_prefix(redis_cluster.url, key_prefix)


async def _move(client: GameClient, game: SeatedGame, acknowledged: set[str] | None = None) -> int | None:
    """Play the first legal command of a pending seat; its version, or None once the game is over."""
    view = await client.view(game.game_id)
    if not view.pending_seats:
        return None
    seat = view.pending_seats[0]
    mine = await client.view(game.game_id, seat, game.tokens[seat])
    command_id = f"{game.game_id}-{mine.version}"
    reply = await client.submit(game.game_id, seat, game.tokens[seat], mine.legal_commands[0], command_id=command_id)
    if acknowledged is not None:  # a duplicate too: the first try was applied, its reply lost
        acknowledged.add(command_id)
    return reply.version


async def _watch(client: GameClient, game_id: str) -> list[int]:
    return [event.version async for event in client.watch(game_id, from_version=1)]


async def test_every_game_with_each_command_on_another_replica(
    redis_cluster: RedisTarget, key_prefix: str, tmp_path: Path, cleanup: None
) -> None:
    async with AsyncExitStack() as stack:
        targets = [
            (await stack.enter_async_context(serve(redis_cluster, key_prefix, tmp_path / str(i))))[1] for i in range(3)
        ]
        players = [await stack.enter_async_context(GameClient(t)) for t in targets[:2]]
        watcher = await stack.enter_async_context(GameClient(targets[2]))
        for engine in GAMES:
            name = engine.spec.name
            game = await seated_game(players[0], name, engine.spec.min_seats, seed=name.encode().ljust(16, b"-"))
            watching = asyncio.create_task(_watch(watcher, game.game_id))
            turn, last = 0, 0
            while (version := await _move(players[turn % 2], game)) is not None:
                turn, last = turn + 1, version
            assert await asyncio.wait_for(watching, 60) == list(range(1, last + 1))
            verdict = await verify_game(targets[2], game.game_id)
            assert verdict.verified, verdict.message


async def test_games_finish_when_a_replica_is_killed(
    redis_cluster: RedisTarget, key_prefix: str, tmp_path: Path, cleanup: None
) -> None:
    async with AsyncExitStack() as stack:
        servers = [
            await stack.enter_async_context(serve(redis_cluster, key_prefix, tmp_path / str(i))) for i in range(3)
        ]
        client = await stack.enter_async_context(GameClient(",".join(t for _, t in servers)))
        games = [await seated_game(client, "oldmen", 4, seed=bytes([i]) * 16) for i in range(6)]
        acknowledged: set[str] = set()
        for game in games:
            for _ in range(3):
                await _move(client, game, acknowledged)
        victim = servers[0][0]
        victim.send_signal(signal.SIGKILL)
        await victim.wait()
        for game in games:
            while await _move(client, game, acknowledged) is not None:
                pass
        logged: set[str] = set()
        for game in games:
            logged |= {e.command_id async for e in client.events(game.game_id) if e.command_id}
            verdict = await verify_game(servers[1][1], game.game_id)
            assert verdict.verified, verdict.message
        assert logged == acknowledged


async def test_a_tournament_finishes_when_its_scheduler_replica_is_killed(
    redis_cluster: RedisTarget, key_prefix: str, tmp_path: Path, cleanup: None
) -> None:
    names = ["k-a", "k-b", "k-c", "k-d"]
    stop = asyncio.Event()
    bots: list[asyncio.Task[object]] = []
    async with AsyncExitStack() as stack:
        first, first_target = await stack.enter_async_context(serve(redis_cluster, key_prefix, tmp_path / "a"))
        tournament_id = await create_and_register(first_target, names, table_size=3, rounds=2)
        await start(first_target, tournament_id)  # only the first replica runs now: it takes the lease
        _, second_target = await stack.enter_async_context(serve(redis_cluster, key_prefix, tmp_path / "b"))
        both = f"{first_target},{second_target}"
        try:
            bots = [
                asyncio.create_task(run_bot(both, n, BOT_KEY, lambda g: make_bot("random", g), stop=stop))
                for n in names
            ]
            before = await _wait_for(second_target, tournament_id, 2)
            first.send_signal(signal.SIGKILL)
            await first.wait()
            after = await _wait_for(second_target, tournament_id, 1_000)
            events = await tournament_events(second_target, tournament_id)
        finally:
            stop.set()
            await asyncio.wait_for(asyncio.gather(*bots, return_exceptions=True), timeout=30)
        games = [e.table_scheduled.game_id for e in events if e.HasField("table_scheduled")]
        verdicts = [await verify_game(second_target, game_id) for game_id in games]
    assert before.tournament.games_finished < 8, "the replica was killed in the middle of the tournament"
    assert after.tournament.status == pb.TOURNAMENT_STATUS_FINISHED, after.tournament
    assert len(games) == len(set(games)) == 8, "each of the 8 tables was scheduled once"
    assert all(v.verified for v in verdicts), [v.message for v in verdicts if not v.verified]
    assert {s.bot_name: s.games for s in after.standings} == dict.fromkeys(names, 6)
    assert_standings_match(list(after.standings), events)


async def _wait_for(target: str, tournament_id: str, done: int) -> pb.GetStandingsResponse:
    """Standings once at least ``done`` games are finished or the tournament is (at most 3 minutes)."""
    async with asyncio.timeout(180):
        while True:
            reply = await standings(target, tournament_id)
            if reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED or reply.tournament.games_finished >= done:
                return reply
            await asyncio.sleep(0.05)
