"""The workers of one `parlour serve --workers 2` are replicas on one Redis, as servers on several machines
are: the clocks of games started on both workers fire once per deadline; a game watched over two
connections that reached different workers is seen whole by both; a tournament is scheduled by one worker at
a time and finishes, every table once, when the worker that holds its lease is killed."""

from __future__ import annotations

import asyncio
import os
import signal
from functools import partial
from pathlib import Path

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import clock_pb2, game_pb2, game_service_pb2
from parlour.v1 import tournament_service_pb2 as pb
from tests.e2e.test_metrics import scrape
from tests.tournaments.helpers import (
    BOT_KEY,
    assert_standings_match,
    create_and_register,
    standings,
    start,
    tournament_events,
    verify_game,
)
from tests.workers.helpers import (
    Connection,
    Server,
    Store,
    again,
    connections_on_every_worker,
    seated_game,
    serve_workers,
)


async def _finished(connection: Connection, game_id: str, seconds: float = 120) -> int:
    """The game's last version once it is over."""
    async with asyncio.timeout(seconds):
        while True:
            view = await connection.view(game_id)
            if view.status == game_pb2.GAME_STATUS_FINISHED:
                return int(view.version)
            await asyncio.sleep(0.05)


async def test_clocks_of_games_on_two_workers_fire_once_per_deadline(store: Store, tmp_path: Path) -> None:
    async with serve_workers(tmp_path, store, "--min-move-ms", "10") as server:
        on = await connections_on_every_worker(server, 2)
        control = clock_pb2.TimeControl(move_ms=100, max_timeouts=1)
        games = []
        for connection in on.values():  # the last claim starts the clock, on that connection's worker
            games += [await seated_game(connection, "oldmen", 3, time_control=control) for _ in range(2)]
        reader = next(iter(on.values()))
        for game in games:
            await _finished(reader, game.game_id)
        stored: list[str] = []
        for game in games:
            ids = await reader.command_ids(game.game_id)
            assert ids and all(i.startswith(f"timeout:{game.game_id}:") for i in ids), "only the clocks moved"
            assert len(ids) == len(set(ids)), "each timeout stored once"
            stored += ids
        await asyncio.sleep(0.5)  # the last lines of the log
        timeouts = [line for line in server.logged("command applied") if line["command_id"].startswith("timeout:")]
        applied = [line for line in timeouts if not line["duplicate"]]
        assert sorted(line["command_id"] for line in applied) == sorted(stored), "every timeout applied once"
        assert {line["pid"] for line in applied} == set(on), "both workers enforced deadlines"
        for connection in on.values():
            await connection.close()


async def _streams_open_on(server: Server, pids: set[int]) -> None:
    """Wait until /metrics shows a WatchGame stream open on each worker of ``pids``."""
    async with asyncio.timeout(20):
        while True:
            samples = await scrape(f"http://127.0.0.1:{server.http_port}/metrics")
            open_on = {
                int(dict(labels)["pid"])
                for (name, labels), count in samples.items()
                if name == "parlour_open_streams" and ("rpc", "WatchGame") in labels and count >= 1
            }
            if open_on >= pids:
                return
            await asyncio.sleep(0.1)


async def test_watchers_of_one_game_on_two_workers_see_every_event(store: Store, tmp_path: Path) -> None:
    async with serve_workers(tmp_path, store) as server:
        on = await connections_on_every_worker(server, 2)
        player = Connection(server.target)
        game = await seated_game(player)
        watching = [asyncio.create_task(connection.versions(game.game_id)) for connection in on.values()]
        await _streams_open_on(server, set(on))
        while True:
            view = await player.view(game.game_id)
            if view.status == game_pb2.GAME_STATUS_FINISHED:
                break
            seat = view.pending_seats[0]
            own = await player.view(game.game_id, seat, game.tokens[seat])
            request = game_service_pb2.SubmitCommandRequest(
                game_id=game.game_id,
                seat=seat,
                command=own.legal_commands[0],
                expected_version=own.version,
                command_id=f"watched-{own.version}",
            )
            await player.games.SubmitCommand(request, metadata=[("authorization", f"Bearer {game.tokens[seat]}")])
        seen = await asyncio.wait_for(asyncio.gather(*watching), 60)
        assert seen == [list(range(1, view.version + 1))] * 2, "each watcher saw every event once, in order"
        for connection in [player, *on.values()]:
            await connection.close()


async def _scheduler(server: Server, seconds: float = 30) -> int:
    """The pid of the worker whose scheduler runs the tournament (its per-process gauge says 1)."""
    async with asyncio.timeout(seconds):
        while True:
            samples = await scrape(f"http://127.0.0.1:{server.http_port}/metrics")
            running = [
                int(dict(labels)["pid"])
                for (name, labels), count in samples.items()
                if name == "parlour_tournaments_scheduled" and count == 1
            ]
            if running:
                (pid,) = running  # one worker at a time
                return pid
            await asyncio.sleep(0.1)


async def _wait_for(target: str, tournament_id: str, done: int) -> pb.GetStandingsResponse:
    """Standings once at least ``done`` games are finished or the tournament is (at most 3 minutes)."""
    async with asyncio.timeout(180):
        while True:
            reply = await again(partial(standings, target, tournament_id))
            if reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED or reply.tournament.games_finished >= done:
                return reply
            await asyncio.sleep(0.05)


async def test_a_tournament_finishes_once_when_the_worker_with_its_lease_is_killed(
    store: Store, tmp_path: Path
) -> None:
    names = ["w-a", "w-b", "w-c", "w-d"]
    stop = asyncio.Event()
    bots: list[asyncio.Task[object]] = []
    async with serve_workers(tmp_path, store) as server:
        target = server.target
        tournament_id = await create_and_register(target, names, table_size=3, rounds=2)
        try:
            bots = [
                asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g), stop=stop))
                for n in names
            ]
            await start(target, tournament_id)
            holder = await _scheduler(server)
            before = await _wait_for(target, tournament_id, 2)
            os.kill(holder, signal.SIGKILL)
            after = await _wait_for(target, tournament_id, 1_000)
            events = await again(partial(tournament_events, target, tournament_id))
            games = [e.table_scheduled.game_id for e in events if e.HasField("table_scheduled")]
            verdicts = [await again(partial(verify_game, target, game_id)) for game_id in games]
        finally:
            stop.set()
            await asyncio.wait_for(asyncio.gather(*bots, return_exceptions=True), timeout=30)
    assert before.tournament.games_finished < 8, "the worker was killed in the middle of the tournament"
    assert after.tournament.status == pb.TOURNAMENT_STATUS_FINISHED, after.tournament
    assert len(games) == len(set(games)) == 8, "each of the 8 tables was scheduled once"
    assert all(v.verified for v in verdicts), [v.message for v in verdicts if not v.verified]
    assert {s.bot_name: s.games for s in after.standings} == dict.fromkeys(names, 6)
    assert_standings_match(list(after.standings), events)
