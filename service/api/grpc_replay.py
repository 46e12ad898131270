"""The gRPC transport of ReplayService over :class:`service.app.replays.Replays`."""

from __future__ import annotations

from typing import Any

import grpc

from parlour.v1 import replay_service_pb2 as pb
from parlour.v1 import replay_service_pb2_grpc as pb_grpc
from service.api.grpc_errors import grpc_errors
from service.app.replays import Replays

__all__ = ["ReplayServicer"]

Context = grpc.aio.ServicerContext[Any, Any]


class ReplayServicer(pb_grpc.ReplayServiceServicer):
    """Decodes, calls one use case, encodes; errors go through ``grpc_errors``."""

    def __init__(self, replays: Replays) -> None:
        self._replays = replays

    @grpc_errors
    async def ExportGame(self, request: pb.ExportGameRequest, context: Context) -> pb.ExportGameResponse:
        """The export of a finished game."""
        return pb.ExportGameResponse(export=await self._replays.export(request.game_id))

    @grpc_errors
    async def VerifyGame(self, request: pb.VerifyGameRequest, context: Context) -> pb.VerifyGameResponse:
        """Re-run an export and compare."""
        return self._replays.verify(request.export)

    @grpc_errors
    async def ViewReplay(self, request: pb.ViewReplayRequest, context: Context) -> pb.ViewReplayResponse:
        """A view of an export at a version."""
        seat = request.seat if request.HasField("seat") else None
        return pb.ViewReplayResponse(view=self._replays.view(request.export, request.at_version, seat))

    @grpc_errors
    async def ImportGame(self, request: pb.ImportGameRequest, context: Context) -> pb.ImportGameResponse:
        """Verify and store an export."""
        return pb.ImportGameResponse(game_id=await self._replays.import_game(request.export))
