"""Asyncio clients for a Parlour server: :class:`GameClient` (GameService, with seat tokens and an API key)
and :class:`AdminClient` (AdminService, with the admin key), both with readable errors."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from parlour.channel import Tls, api_key_metadata, api_key_or_env, open_channel
from parlour.channels import RETRIES
from parlour.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    clock_pb2,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
)

__all__ = ["ADMIN_KEY_ENV", "AdminClient", "GameClient", "ParlourError"]

#: The environment variable :class:`AdminClient` takes the admin key from when none is given.
ADMIN_KEY_ENV = "PARLOUR_ADMIN_KEY"

_REASON_KEY = "parlour-error-reason"
_BACKOFF_S = 0.1
#: How long :meth:`GameClient.watch` keeps opening a stream again while the server answers UNAVAILABLE.
WATCH_PATIENCE_S = 60.0
_WATCH_PAUSE_MAX_S = 2.0


class ParlourError(Exception):
    """A call the server refused: ``reason`` (e.g. "command/illegal"), the gRPC ``code`` and the sentence."""

    def __init__(self, reason: str, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} ({self.reason})" if self.reason else self.message

    @classmethod
    def from_rpc(cls, error: grpc.aio.AioRpcError) -> ParlourError:
        """The error a failed call carries (reason from the trailing metadata, when the server sent one)."""
        metadata = error.trailing_metadata() or ()
        reason = next((str(v) for k, v in metadata if k == _REASON_KEY), "")
        if not reason and error.code() == grpc.StatusCode.UNAVAILABLE:
            return cls("server/unavailable", error.code(), f"cannot reach the server: {error.details()}")
        return cls(reason, error.code(), error.details() or error.code().name)


def _auth(token: str | None) -> Sequence[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")] if token else []


#: Calls not sent again after UNAVAILABLE: a lost reply may hide a claim that succeeded.
_NOT_RETRIED = frozenset({"ClaimSeat"})


class GameClient:
    """One connection to a server, or to several replicas: ``GameClient("a:50051,b:50051")`` spreads the
    calls over them (round robin) and sends a call that failed with UNAVAILABLE again, on the next
    replica, with the same command id (see :mod:`parlour.channels`). Use ``async with``.

    Every call carries the client's API key, when it has one, as ``x-parlour-api-key``: a server run with
    ``--require-api-key`` wants one to create games and claim seats, and any server refuses a key it did
    not issue or has revoked (``auth/bad_api_key``)."""

    def __init__(self, target: str, *, tls: Tls | None = None, api_key: str | None = None) -> None:
        """Connect to ``target`` ("host:port"), over TLS with ``tls``. ``api_key`` is sent with every call;
        when it is None the ``PARLOUR_API_KEY`` environment variable is used, if set ("" sends no key)."""
        self.target = target
        self._api_key = api_key_metadata(api_key_or_env(api_key))
        self._channel = open_channel(target, tls)
        self._stub = game_service_pb2_grpc.GameServiceStub(self._channel)

    async def __aenter__(self) -> GameClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel."""
        await self._channel.close()

    def _metadata(self, token: str | None) -> list[tuple[str, str]]:
        return [*self._api_key, *_auth(token)]

    async def _call(self, method: str, request: Any, token: str | None = None) -> Any:
        retries = 0 if method in _NOT_RETRIED else RETRIES
        for attempt in range(retries + 1):
            try:
                return await getattr(self._stub, method)(request, metadata=self._metadata(token))
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == retries:
                    raise ParlourError.from_rpc(error) from None
                await asyncio.sleep(_BACKOFF_S * (attempt + 1))
        raise AssertionError("unreachable")

    async def game_types(self) -> list[game_service_pb2.GameType]:
        """The games the server plays."""
        response = await self._call("ListGameTypes", game_service_pb2.ListGameTypesRequest())
        return list(response.game_types)

    async def create_game(
        self,
        game: str,
        seats: int,
        options: dict[str, str] | None = None,
        seed: bytes | None = None,
        *,
        keep_hidden_after_end: bool = False,
        time_control: clock_pb2.TimeControl | None = None,
        rules_version: str = "",
    ) -> game_service_pb2.GameSummary:
        """Create a game (under ``rules_version``, one of ``GameType.rules_versions``; empty: the server's
        current one); returns its summary (``.game_id``). See CreateGameRequest for the arguments."""
        request = game_service_pb2.CreateGameRequest(
            game=game,
            seats=seats,
            options=options or {},
            keep_hidden_after_end=keep_hidden_after_end,
            rules_version=rules_version,
        )
        if seed is not None:
            request.seed = seed
        if time_control is not None:
            request.time_control.CopyFrom(time_control)
        response: game_service_pb2.CreateGameResponse = await self._call("CreateGame", request)
        return response.game

    async def claim_seat(self, game_id: str, player_name: str, seat: int | None = None) -> tuple[int, str]:
        """Claim a seat (the lowest free one when ``seat`` is None); returns (seat, token)."""
        request = game_service_pb2.ClaimSeatRequest(game_id=game_id, player_name=player_name)
        if seat is not None:
            request.seat = seat
        response = await self._call("ClaimSeat", request)
        return response.seat, response.seat_token

    async def game(self, game_id: str) -> game_service_pb2.GameSummary:
        """A game's summary."""
        response: game_service_pb2.GetGameResponse = await self._call(
            "GetGame", game_service_pb2.GetGameRequest(game_id=game_id)
        )
        return response.game

    async def view(self, game_id: str, seat: int | None = None, token: str | None = None) -> game_pb2.GameView:
        """A seat's view (with its token) or the spectator's view."""
        request = game_service_pb2.GetViewRequest(game_id=game_id)
        if seat is not None:
            request.seat = seat
        response: game_service_pb2.GetViewResponse = await self._call("GetView", request, token)
        return response.view

    async def view_at(
        self, game_id: str, version: int, seat: int | None = None, token: str | None = None
    ) -> game_pb2.GameView:
        """The view as it was just after event ``version`` (a replay step); no legal commands."""
        request = game_service_pb2.GetViewRequest(game_id=game_id, at_version=version)
        if seat is not None:
            request.seat = seat
        response: game_service_pb2.GetViewResponse = await self._call("GetView", request, token)
        return response.view

    async def submit(
        self,
        game_id: str,
        seat: int,
        token: str,
        command: game_pb2.Command,
        *,
        expected_version: int | None = None,
        command_id: str | None = None,
    ) -> game_service_pb2.SubmitCommandResponse:
        """Submit a command; a fresh command id is made unless given (pass the same one to retry)."""
        request = game_service_pb2.SubmitCommandRequest(
            game_id=game_id, seat=seat, command=command, command_id=command_id or uuid.uuid4().hex
        )
        if expected_version is not None:
            request.expected_version = expected_version
        response: game_service_pb2.SubmitCommandResponse = await self._call("SubmitCommand", request, token)
        return response

    async def watch(
        self, game_id: str, from_version: int = 1, seat: int | None = None, token: str | None = None
    ) -> AsyncIterator[game_pb2.Event]:
        """Events from ``from_version``, live; ends after a finished game's last event (received one message
        per command, see :meth:`watch_commands`)."""
        async for command in self.watch_commands(game_id, from_version, seat, token):
            for event in command:
                yield event

    async def watch_commands(
        self, game_id: str, from_version: int = 1, seat: int | None = None, token: str | None = None
    ) -> AsyncIterator[list[game_pb2.Event]]:
        """The events of each command (and of the setup) together, from ``from_version``, live, one
        message per command (``WatchGameRequest.by_command``); ends after a finished game's last event. A
        stream that ends with UNAVAILABLE (a replica stopped, Redis away) is opened again after the last
        event received, with a growing pause (at most ``_WATCH_PAUSE_MAX_S``), for as long as the server
        stays unavailable up to ``WATCH_PATIENCE_S``: longer than a server waits for Redis before ending its
        streams (15 s), so a watch rides out an outage that ends them. Then, or on any other error, raises
        ParlourError."""
        version, failures = from_version, 0
        failing_since: float | None = None
        while True:
            request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=version, by_command=True)
            if seat is not None:
                request.seat = seat
            call = self._stub.WatchGame(request, metadata=self._metadata(token))
            try:
                async for response in call:
                    failures, failing_since = 0, None
                    version = response.version + 1
                    yield list(response.events)
                return
            except grpc.aio.AioRpcError as error:
                failures += 1
                now = time.monotonic()
                failing_since = now if failing_since is None else failing_since
                if error.code() != grpc.StatusCode.UNAVAILABLE or now - failing_since > WATCH_PATIENCE_S:
                    raise ParlourError.from_rpc(error) from None
            finally:
                call.cancel()
            await asyncio.sleep(min(_BACKOFF_S * failures, _WATCH_PAUSE_MAX_S))

    async def events(
        self, game_id: str, from_version: int = 1, seat: int | None = None, token: str | None = None
    ) -> AsyncIterator[game_pb2.Event]:
        """Every stored event from ``from_version`` to the current end, page by page."""
        version = from_version
        while True:
            request = game_service_pb2.ListEventsRequest(game_id=game_id, from_version=version, page_size=1000)
            if seat is not None:
                request.seat = seat
            page = await self._call("ListEvents", request, token)
            for event in page.events:
                yield event
            if not page.events or page.next_version > page.last_version:
                return
            version = page.next_version

    async def list_games(
        self, game: str = "", status: int = 0, page_size: int = 50, page_token: str = ""
    ) -> game_service_pb2.ListGamesResponse:
        """A page of games, newest first."""
        request = game_service_pb2.ListGamesRequest(
            game=game, status=game_pb2.GameStatus.ValueType(status), page_size=page_size, page_token=page_token
        )
        response: game_service_pb2.ListGamesResponse = await self._call("ListGames", request)
        return response


class AdminClient:
    """The server's AdminService: API keys, bot names and seat tokens. Every call carries the server's
    admin key as ``x-parlour-admin-key`` (the key ``parlour serve --admin-key`` was given); a wrong one is
    ``auth/bad_admin_key``. Calls are not sent again after a failure. Use ``async with``."""

    def __init__(self, target: str, *, admin_key: str | None = None, tls: Tls | None = None) -> None:
        """Connect to ``target`` ("host:port"), over TLS with ``tls``. ``admin_key`` defaults to the
        ``PARLOUR_ADMIN_KEY`` environment variable; raises ValueError when there is none."""
        key = (os.environ.get(ADMIN_KEY_ENV, "") if admin_key is None else admin_key).strip()
        if not key:
            raise ValueError(f"the admin calls need the server's admin key: give admin_key or set {ADMIN_KEY_ENV}")
        self.target = target
        self._metadata = [("x-parlour-admin-key", key)]
        self._channel = open_channel(target, tls)
        self._stub = admin_service_pb2_grpc.AdminServiceStub(self._channel)

    async def __aenter__(self) -> AdminClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel."""
        await self._channel.close()

    async def _call(self, method: str, request: Any) -> Any:
        try:
            return await getattr(self._stub, method)(request, metadata=self._metadata)
        except grpc.aio.AioRpcError as error:
            raise ParlourError.from_rpc(error) from None

    async def create_api_key(self, name: str) -> str:
        """A new API key named ``name`` (who it is for); the key is shown only in this reply."""
        reply = await self._call("CreateApiKey", admin_service_pb2.CreateApiKeyRequest(name=name))
        return str(reply.api_key)

    async def api_keys(self) -> list[str]:
        """The names of the API keys, sorted."""
        reply = await self._call("ListApiKeys", admin_service_pb2.ListApiKeysRequest())
        return list(reply.names)

    async def revoke_api_key(self, name: str) -> None:
        """Revoke the API key named ``name`` at once."""
        await self._call("RevokeApiKey", admin_service_pb2.RevokeApiKeyRequest(name=name))

    async def release_bot_name(self, bot_name: str) -> None:
        """Forget bot ``bot_name``'s key: the next bot to connect with that name registers it anew."""
        await self._call("ReleaseBotName", admin_service_pb2.ReleaseBotNameRequest(bot_name=bot_name))

    async def revoke_seat_token(self, game_id: str, seat: int) -> None:
        """Revoke the token of ``seat`` in game ``game_id`` (the seat stays taken; its clock plays it)."""
        await self._call("RevokeSeatToken", admin_service_pb2.RevokeSeatTokenRequest(game_id=game_id, seat=seat))
