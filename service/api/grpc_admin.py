"""The gRPC transport of AdminService (API keys, bot names, seat tokens); every call needs the admin key."""

from __future__ import annotations

from typing import Any

import grpc

from parlour.v1 import admin_service_pb2 as pb
from parlour.v1 import admin_service_pb2_grpc as pb_grpc
from service.api.grpc_errors import grpc_errors
from service.api.grpc_metadata import invocation_metadata
from service.app.admin import check_admin
from service.app.api_keys import ApiKeys
from service.app.bots import Bots
from service.app.games import Games

__all__ = ["AdminServicer"]

Context = grpc.aio.ServicerContext[Any, Any]


def _admin_key(context: Context) -> str | None:
    for key, value in invocation_metadata(context):
        if key == "x-parlour-admin-key" and isinstance(value, str):
            return value
    return None


class AdminServicer(pb_grpc.AdminServiceServicer):
    """Checks the admin key, then calls one use case."""

    def __init__(self, keys: ApiKeys, bots: Bots, games: Games, admin_key: str) -> None:
        self._keys = keys
        self._bots = bots
        self._games = games
        self._admin_key = admin_key

    @grpc_errors
    async def CreateApiKey(self, request: pb.CreateApiKeyRequest, context: Context) -> pb.CreateApiKeyResponse:
        """A new API key."""
        check_admin(_admin_key(context), self._admin_key)
        return pb.CreateApiKeyResponse(name=request.name, api_key=await self._keys.create(request.name))

    @grpc_errors
    async def RevokeApiKey(self, request: pb.RevokeApiKeyRequest, context: Context) -> pb.RevokeApiKeyResponse:
        """Revoke a key."""
        check_admin(_admin_key(context), self._admin_key)
        await self._keys.revoke(request.name)
        return pb.RevokeApiKeyResponse()

    @grpc_errors
    async def ListApiKeys(self, request: pb.ListApiKeysRequest, context: Context) -> pb.ListApiKeysResponse:
        """The keys' names."""
        check_admin(_admin_key(context), self._admin_key)
        return pb.ListApiKeysResponse(names=await self._keys.names())

    @grpc_errors
    async def ReleaseBotName(self, request: pb.ReleaseBotNameRequest, context: Context) -> pb.ReleaseBotNameResponse:
        """Forget a bot's key."""
        check_admin(_admin_key(context), self._admin_key)
        await self._bots.release(request.bot_name)
        return pb.ReleaseBotNameResponse()

    @grpc_errors
    async def RevokeSeatToken(self, request: pb.RevokeSeatTokenRequest, context: Context) -> pb.RevokeSeatTokenResponse:
        """Revoke a seat token."""
        check_admin(_admin_key(context), self._admin_key)
        await self._games.revoke_seat(request.game_id, request.seat)
        return pb.RevokeSeatTokenResponse()
