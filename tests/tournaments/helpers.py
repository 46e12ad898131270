"""Helpers for tournament tests: an admin client and bots running over the network."""

from __future__ import annotations

import grpc

from parlour.v1 import clock_pb2
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc

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
        for name in bots:
            await stub.RegisterBot(pb.RegisterBotRequest(tournament_id=tid, bot_name=name, bot_key=BOT_KEY))
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
