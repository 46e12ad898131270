"""The gRPC transport: GameService over :class:`service.app.games.Games`, plus health and reflection."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from parlour.v1 import game_service_pb2 as pb
from parlour.v1 import game_service_pb2_grpc as pb_grpc
from service.api.grpc_errors import grpc_errors, grpc_writer_errors
from service.api.grpc_metadata import invocation_metadata
from service.api.grpc_observe import observed
from service.api.grpc_reflect import add_reflection
from service.api.grpc_wire import SharedReplies
from service.api.grpc_wrapping import HandlerWrapper, WrappingRegistry
from service.api.ports import unavailable
from service.api.stalls import Stalls
from service.app.games import Games
from service.app.stream_tickets import StreamTickets
from service.app.time_control import TimeControl
from service.app.timestamps import timestamp

__all__ = ["RECEIVE_SLACK_BYTES", "GameServicer", "GrpcServer", "Service", "build_grpc_server"]

Context = grpc.aio.ServicerContext[Any, Any]
#: Streams whose replies are shared by every watcher of one audience (serialized once: see grpc_wire).
SHARED_REPLIES = ("/parlour.v1.GameService/WatchGame",)
#: How far over the server's request limit gRPC itself still reads a message, so that the server refuses
#: it with its own error; beyond, gRPC core refuses it alone.
RECEIVE_SLACK_BYTES = 1024 * 1024


def _token(context: Context) -> str | None:
    """The bearer token from the ``authorization`` metadata entry, if any."""
    for key, value in invocation_metadata(context):
        if key == "authorization" and isinstance(value, str) and value.lower().startswith("bearer "):
            return value[7:].strip()
    return None


def _optional(request: Any, field: str) -> Any:
    return getattr(request, field) if request.HasField(field) else None


class GameServicer(pb_grpc.GameServiceServicer):
    """Decodes requests, calls one use case, encodes the reply; errors go through ``grpc_errors``."""

    def __init__(self, games: Games, tickets: StreamTickets, stalls: Stalls | None = None) -> None:
        """``stalls`` ends streams whose client stopped reading (by default after 30 s)."""
        self._games = games
        self._tickets = tickets
        self._stalls = stalls if stalls is not None else Stalls()

    @grpc_errors
    async def ListGameTypes(self, request: pb.ListGameTypesRequest, context: Context) -> pb.ListGameTypesResponse:
        """Every registered game's spec."""
        return pb.ListGameTypesResponse(game_types=self._games.game_types())

    @grpc_errors
    async def GetGameRules(self, request: pb.GetGameRulesRequest, context: Context) -> pb.GetGameRulesResponse:
        """A rules version's components named and explained."""
        return self._games.game_rules(request.game, request.rules_version)

    @grpc_errors
    async def CreateGame(self, request: pb.CreateGameRequest, context: Context) -> pb.CreateGameResponse:
        """Create and deal a game."""
        summary = await self._games.create_game(
            request.game,
            request.seats,
            dict(request.options),
            _optional(request, "seed"),
            keep_hidden=request.keep_hidden_after_end,
            time_control=TimeControl.from_proto(request.time_control) if request.HasField("time_control") else None,
            house_bots=[(bot.seat, bot.strategy) for bot in request.house_bots],
            rules_version=request.rules_version,
        )
        return pb.CreateGameResponse(game=summary)

    @grpc_errors
    async def ClaimSeat(self, request: pb.ClaimSeatRequest, context: Context) -> pb.ClaimSeatResponse:
        """Claim a seat and return its token."""
        seat, token = await self._games.claim_seat(request.game_id, _optional(request, "seat"), request.player_name)
        return pb.ClaimSeatResponse(seat=seat, seat_token=token)

    @grpc_errors
    async def GetGame(self, request: pb.GetGameRequest, context: Context) -> pb.GetGameResponse:
        """One game's summary."""
        return pb.GetGameResponse(game=await self._games.get_game(request.game_id))

    @grpc_errors
    async def GetView(self, request: pb.GetViewRequest, context: Context) -> pb.GetViewResponse:
        """A seat's or spectator's view."""
        view = await self._games.get_view(
            request.game_id, _optional(request, "seat"), _token(context), _optional(request, "at_version")
        )
        return pb.GetViewResponse(view=view)

    @grpc_errors
    async def SubmitCommand(self, request: pb.SubmitCommandRequest, context: Context) -> pb.SubmitCommandResponse:
        """Apply a command (acknowledged once stored)."""
        return await self._games.commands.submit(
            request.game_id,
            request.seat,
            _token(context),
            request.command,
            expected_version=_optional(request, "expected_version"),
            command_id=request.command_id,
        )

    @grpc_writer_errors
    async def WatchGame(  # type: ignore[override]  # writes its replies (grpc.aio's other streaming form)
        self, request: pb.WatchGameRequest, context: Context
    ) -> None:
        """Stream events, history then live. The replies are written here, each through the stall watchdog,
        so the handler wrappers and the error mapping wrap the stream once instead of once per reply."""
        seat = _optional(request, "seat")
        if request.stream_ticket:
            replies = self._tickets.watch(
                request.game_id, request.from_version, seat, request.stream_ticket, by_command=request.by_command
            )
        else:
            replies = self._games.watch_replies(
                request.game_id, request.from_version, seat, _token(context), by_command=request.by_command
            )
        with self._stalls.watching() as writer:
            async for reply in replies:
                await writer.send(context.write, reply)

    @grpc_errors
    async def ListGames(self, request: pb.ListGamesRequest, context: Context) -> pb.ListGamesResponse:
        """A page of game summaries."""
        games, token = await self._games.list_games(request.game, request.status, request.page_size, request.page_token)
        return pb.ListGamesResponse(games=games, next_page_token=token)

    @grpc_errors
    async def ListEvents(self, request: pb.ListEventsRequest, context: Context) -> pb.ListEventsResponse:
        """A page of events."""
        return await self._games.list_events(
            request.game_id, request.from_version, request.page_size, _optional(request, "seat"), _token(context)
        )

    @grpc_errors
    async def CreateStreamTicket(
        self, request: pb.CreateStreamTicketRequest, context: Context
    ) -> pb.CreateStreamTicketResponse:
        """A single-use ticket that opens the seat's event stream."""
        ticket, expires_ms = await self._tickets.issue(request.game_id, request.seat, _token(context))
        return pb.CreateStreamTicketResponse(stream_ticket=ticket, expires_at=timestamp(expires_ms))


@dataclass
class GrpcServer:
    """A built gRPC server, the port it is bound to, and its health service."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    names: tuple[str, ...] = ()

    async def start(self) -> None:
        """Start serving and report SERVING for the server and each of its services."""
        await self.server.start()
        for name in ("", *self.names):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def set_serving(self, serving: bool) -> None:
        """Report SERVING or NOT_SERVING for the server and each of its services."""
        status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in ("", *self.names):
            await self.health.set(name, status)

    async def stop(self, grace: float) -> None:
        """Report NOT_SERVING, then stop, letting calls in flight finish within ``grace`` seconds."""
        for name in ("", *self.names):
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.server.stop(grace)


@dataclass(frozen=True)
class Service:
    """One gRPC service this server offers: its descriptor, its servicer, and the generated function that
    adds the servicer to a server (given a :class:`~service.api.grpc_wrapping.HandlerRegistry`). The same
    list feeds the gRPC server and the REST gateway."""

    descriptor: ServiceDescriptor
    servicer: Any
    register: Callable[[Any, grpc.aio.Server], None]


def build_grpc_server(
    services: Sequence[Service],
    *,
    host: str,
    port: int,
    max_message_bytes: int,
    wrappers: Sequence[HandlerWrapper] = (),
    tls: grpc.ServerCredentials | None = None,
    reuse_port: bool = False,
) -> GrpcServer:
    """A grpc.aio server with ``services``, health checking and reflection, bound to ``host:port`` (port 0:
    any free port; a port that cannot be bound raises PortUnavailableError), every method's handler
    wrapped by ``wrappers`` when it is registered (inside the request ids, outside the shared replies; see
    :mod:`service.api.grpc_wrapping`); with ``tls`` the port takes TLS only. gRPC itself reads messages of
    up to ``max_message_bytes`` and :data:`RECEIVE_SLACK_BYTES` more, so that the wrappers refuse a request
    over the limit with the server's own error (``request/too_large``, the request id); one larger still
    is refused by gRPC core before any handler sees it (RESOURCE_EXHAUSTED, no reason). The port is shared
    (``SO_REUSEPORT``) only with ``reuse_port``: for the workers of one ``parlour serve --workers N``, whose
    parent checked that the port was free (see :mod:`service.api.ports`)."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes + RECEIVE_SLACK_BYTES),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            # A taken port is refused, not shared with another process (unless it is a sibling worker).
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
    )
    registry = WrappingRegistry(server, [observed, *wrappers, SharedReplies(SHARED_REPLIES)])
    for service in services:
        service.register(service.servicer, registry)  # type: ignore[arg-type]  # stands in for the server
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, registry)
    names = [service.descriptor.full_name for service in services]
    files = [service.descriptor.file for service in services]
    add_reflection(registry, (*names, health.SERVICE_NAME), (*files, health_pb2.DESCRIPTOR))
    try:
        address = f"{host}:{port}"
        bound = server.add_secure_port(address, tls) if tls else server.add_insecure_port(address)
    except RuntimeError as error:  # grpc's only signal that no address could be bound
        raise unavailable("gRPC", host, port, "--grpc-port") from error
    return GrpcServer(server=server, port=bound, health=health_servicer, names=tuple(names))
