"""The gRPC transport of bots and tournaments: BotService and TournamentService over the application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from parlour.v1 import bot_service_pb2 as bot_pb
from parlour.v1 import bot_service_pb2_grpc as bot_grpc
from parlour.v1 import tournament_service_pb2 as tour_pb
from parlour.v1 import tournament_service_pb2_grpc as tour_grpc
from service.api.grpc_errors import grpc_errors, grpc_stream_errors
from service.api.grpc_metadata import invocation_metadata
from service.app.admin import check_admin
from service.app.bots import Bots
from service.app.errors import ServiceError
from service.app.tournaments.service import Tournaments

__all__ = ["BotServicer", "TournamentServicer"]

Context = grpc.aio.ServicerContext[Any, Any]


def _metadata(context: Context, name: str) -> str | None:
    for key, value in invocation_metadata(context):
        if key == name and isinstance(value, str):
            return value
    return None


async def _moves(requests: AsyncIterator[bot_pb.ConnectRequest]) -> AsyncIterator[bot_pb.Move]:
    async for request in requests:
        if request.HasField("move"):
            yield request.move


class BotServicer(bot_grpc.BotServiceServicer):
    """The bot stream and the assignments call."""

    def __init__(self, bots: Bots) -> None:
        self._bots = bots

    @grpc_stream_errors
    async def Connect(
        self, request_iterator: AsyncIterator[bot_pb.ConnectRequest], context: Context
    ) -> AsyncIterator[bot_pb.ConnectResponse]:
        """Hello first, then the session's messages."""
        first = await anext(aiter(request_iterator), None)
        if first is None or not first.HasField("hello"):
            raise ServiceError("request/invalid", "a bot's stream must start with a Hello message")
        async for reply in self._bots.session(first.hello, _moves(request_iterator)):
            yield reply

    @grpc_errors
    async def ListAssignments(
        self, request: bot_pb.ListAssignmentsRequest, context: Context
    ) -> bot_pb.ListAssignmentsResponse:
        """The bot's unfinished assignments (key from ``x-parlour-bot-key``)."""
        key = _metadata(context, "x-parlour-bot-key") or ""
        return bot_pb.ListAssignmentsResponse(assignments=await self._bots.assignments(request.bot_name, key))


class TournamentServicer(tour_grpc.TournamentServiceServicer):
    """Tournament calls; create and start need the admin key (``x-parlour-admin-key``)."""

    def __init__(self, tournaments: Tournaments, admin_key: str) -> None:
        self._tournaments = tournaments
        self._admin_key = admin_key

    @grpc_errors
    async def CreateTournament(
        self, request: tour_pb.CreateTournamentRequest, context: Context
    ) -> tour_pb.CreateTournamentResponse:
        """Create (admin)."""
        check_admin(_metadata(context, "x-parlour-admin-key"), self._admin_key)
        return tour_pb.CreateTournamentResponse(tournament=await self._tournaments.create(request.settings))

    @grpc_errors
    async def RegisterBot(self, request: tour_pb.RegisterBotRequest, context: Context) -> tour_pb.RegisterBotResponse:
        """Register a bot with its key (a new name only with the admin key)."""
        admin = _metadata(context, "x-parlour-admin-key")
        if admin is not None:
            check_admin(admin, self._admin_key)
        summary = await self._tournaments.register(
            request.tournament_id, request.bot_name, request.bot_key, by_admin=admin is not None
        )
        return tour_pb.RegisterBotResponse(tournament=summary)

    @grpc_errors
    async def StartTournament(
        self, request: tour_pb.StartTournamentRequest, context: Context
    ) -> tour_pb.StartTournamentResponse:
        """Start (admin)."""
        check_admin(_metadata(context, "x-parlour-admin-key"), self._admin_key)
        return tour_pb.StartTournamentResponse(tournament=await self._tournaments.start(request.tournament_id))

    @grpc_errors
    async def GetStandings(
        self, request: tour_pb.GetStandingsRequest, context: Context
    ) -> tour_pb.GetStandingsResponse:
        """Summary and standings."""
        summary, standings = await self._tournaments.standings(request.tournament_id)
        return tour_pb.GetStandingsResponse(tournament=summary, standings=standings)

    @grpc_errors
    async def ListTournaments(
        self, request: tour_pb.ListTournamentsRequest, context: Context
    ) -> tour_pb.ListTournamentsResponse:
        """Every tournament."""
        return tour_pb.ListTournamentsResponse(tournaments=await self._tournaments.list_all())

    @grpc_stream_errors
    async def WatchTournament(
        self, request: tour_pb.WatchTournamentRequest, context: Context
    ) -> AsyncIterator[tour_pb.WatchTournamentResponse]:
        """The tournament's events with standings."""
        async for reply in self._tournaments.watch(request.tournament_id, request.from_version):
            yield reply
