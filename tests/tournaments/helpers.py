"""Helpers for tournament tests: an admin client and bots running over the network."""

from __future__ import annotations

import asyncio
import functools
import os
import re
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
from openskill.models import PlackettLuce

from parlour.bots import make_bot
from parlour.runner import BotRun, run_bot
from parlour.v1 import bot_service_pb2 as bot_pb
from parlour.v1 import bot_service_pb2_grpc as bot_grpc
from parlour.v1 import clock_pb2
from parlour.v1 import replay_service_pb2 as replay_pb
from parlour.v1 import replay_service_pb2_grpc as replay_grpc
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc
from tests.conftest import RedisTarget

ADMIN_KEY = "test-admin-key-0123456789"
BOT_KEY = "test-bot-key-0123456789"


async def create_and_register(
    target: str,
    bots: list[str],
    *,
    game: str = "oldmen",
    table_size: int = 3,
    rounds: int = 1,
    move_ms: int = 0,
    duplicate: bool = False,
) -> str:
    """Create a round robin tournament, register ``bots``; returns its id (not started)."""
    settings = pb.TournamentSettings(
        name="test",
        game=game,
        table_size=table_size,
        format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        rounds=rounds,
        duplicate_seeds=duplicate,
    )
    if move_ms:
        settings.time_control.CopyFrom(clock_pb2.TimeControl(move_ms=move_ms, max_timeouts=2))
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        admin = [("x-parlour-admin-key", ADMIN_KEY)]
        made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings), metadata=admin)
        tid = made.tournament.tournament_id
        for name in bots:  # by the admin, so the bots need not have connected yet
            request = pb.RegisterBotRequest(tournament_id=tid, bot_name=name, bot_key=BOT_KEY)
            await stub.RegisterBot(request, metadata=admin)
        return str(tid)


async def start(target: str, tournament_id: str) -> None:
    """Start the tournament with the admin key."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        admin = [("x-parlour-admin-key", ADMIN_KEY)]
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tournament_id), metadata=admin)


async def standings(target: str, tournament_id: str) -> pb.GetStandingsResponse:
    """The tournament's standings."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        reply: pb.GetStandingsResponse = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tournament_id))
        return reply


async def tournament_events(target: str, tournament_id: str) -> list[pb.TournamentEvent]:
    """The tournament's whole log, through WatchTournament (which ends after a finished tournament's last
    event)."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        request = pb.WatchTournamentRequest(tournament_id=tournament_id)
        return [reply.event async for reply in stub.WatchTournament(request)]


async def verify_game(target: str, game_id: str) -> replay_pb.VerifyGameResponse:
    """The server's verdict on the game's export: every command re-run from the revealed seed."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = replay_grpc.ReplayServiceStub(channel)
        export = await stub.ExportGame(replay_pb.ExportGameRequest(game_id=game_id))
        reply: replay_pb.VerifyGameResponse = await stub.VerifyGame(replay_pb.VerifyGameRequest(export=export.export))
        return reply


def expected_ratings(events: list[pb.TournamentEvent]) -> dict[str, tuple[float, float]]:
    """(mu, sigma) of each bot, computed here with openskill's Plackett-Luce from the finished tables'
    results in log order, independently of the server's fold."""
    model = PlackettLuce()
    ratings = {e.bot_registered.bot_name: model.rating() for e in events if e.HasField("bot_registered")}
    for event in events:
        if event.HasField("table_finished"):
            results = list(event.table_finished.results)
            rated = model.rate([[ratings[r.player_name]] for r in results], ranks=[float(r.rank) for r in results])
            for result, team in zip(results, rated, strict=True):
                ratings[result.player_name] = team[0]
    return {name: (r.mu, r.sigma) for name, r in ratings.items()}


def assert_standings_match(standings: list[pb.Standing], events: list[pb.TournamentEvent]) -> None:
    """Games, rank points (n - rank at a table of n) and ratings of every bot are what the finished
    tables' results give."""
    games: dict[str, int] = {}
    points: dict[str, int] = {}
    for event in events:
        results = event.table_finished.results
        for result in results:
            games[result.player_name] = games.get(result.player_name, 0) + 1
            points[result.player_name] = points.get(result.player_name, 0) + len(results) - result.rank
    ratings = expected_ratings(events)
    for row in standings:
        assert (row.games, row.rank_points) == (games.get(row.bot_name, 0), points.get(row.bot_name, 0)), row.bot_name
        mu, sigma = ratings[row.bot_name]
        assert abs(row.rating_mu - mu) < 1e-9 and abs(row.rating_sigma - sigma) < 1e-9, row.bot_name


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def serve_process(
    redis: RedisTarget, prefix: str, port: int, data_dir: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    """A `parlour serve` process on ``port``; killed on exit if still running."""
    command = [sys.executable, "-m", "parlour.cli.main", "serve", "--host", "127.0.0.1", "--grpc-port", str(port)]
    command += ["--http-port", "0", "--data-dir", str(data_dir), "--redis", redis.url, "--key-prefix", prefix]
    command += ["--admin-key", ADMIN_KEY, "--log-level", "warning"]
    process = await asyncio.create_subprocess_exec(
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=30)).decode()
        assert re.search(rf"gRPC on 127\.0\.0\.1:{port}\b", line), f"the server did not start: {line!r}"
        yield process
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


class SilentBot:
    """A bot that connects and never moves (its clock runs out at every turn); it keeps what the server
    sends it."""

    def __init__(self, channel: grpc.aio.Channel, name: str, api_key: str = "", key: str = BOT_KEY) -> None:
        """Connect as bot ``name`` with bot key ``key`` (and ``api_key``, if any)."""
        self.name = name
        self.received: list[bot_pb.ConnectResponse] = []
        self._welcome = asyncio.Event()
        metadata = [("x-parlour-api-key", api_key)] if api_key else []
        hello = bot_pb.ConnectRequest(hello=bot_pb.Hello(bot_name=name, bot_key=key))
        self._call = bot_grpc.BotServiceStub(channel).Connect(_forever(hello), metadata=metadata)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self._call:
            self.received.append(message)
            if message.HasField("welcome"):
                self._welcome.set()

    async def welcomed(self) -> None:
        """Return once the server welcomed the bot (failing after 10 s)."""
        await asyncio.wait_for(self._welcome.wait(), 10)

    def notices(self) -> list[bot_pb.Notice]:
        """The notices received so far."""
        return [m.notice for m in self.received if m.HasField("notice")]

    async def close(self) -> None:
        """Hang up."""
        self._call.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


async def _forever(first: bot_pb.ConnectRequest) -> AsyncIterator[bot_pb.ConnectRequest]:
    """``first``, then nothing more until the stream is cancelled."""
    yield first
    await asyncio.Event().wait()


async def join_ladder(target: str, ladder_id: str, name: str, key: str = BOT_KEY) -> None:
    """RegisterBot of bot ``name`` in the ladder (what a ladder bot does each time it connects)."""
    async with grpc.aio.insecure_channel(target) as channel:
        request = pb.RegisterBotRequest(tournament_id=ladder_id, bot_name=name, bot_key=key)
        await pb_grpc.TournamentServiceStub(channel).RegisterBot(request)


def ladder_bot(
    target: str, ladder_id: str, name: str, stop: asyncio.Event, strategy: str = "random"
) -> asyncio.Task[BotRun]:
    """Bot ``name`` playing ``strategy`` (seeded by its name) over the network until ``stop``, joining the
    ladder each time it connects."""
    return asyncio.create_task(
        run_bot(
            target,
            name,
            BOT_KEY,
            functools.partial(make_bot, strategy, seed=name),
            stop=stop,
            on_welcome=functools.partial(join_ladder, target, ladder_id, name),
        )
    )
