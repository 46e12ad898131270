"""Every channel a client reads a game through, over gRPC and over REST, as ``parlour.v1`` messages.

``play_seeded`` plays a game to its end through the application (random legal commands, from a seed);
``Channels`` reads it back the way outside clients do: ListEvents, WatchGame, GetView (latest and at a
version), the export and ViewReplay, over gRPC (the SDK's stubs) and over REST/JSON (aiohttp, SSE),
so a test can compare what each channel shows.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from typing import Any

import aiohttp
import grpc
from google.protobuf import json_format

from engines.contract import AnyGame
from parlour.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc, replay_service_pb2, replay_service_pb2_grpc
from service.bootstrap import App
from tests.rest.harness import HttpError, sse_messages

TRANSPORTS = ("grpc", "rest")


@dataclass
class PlayedGame:
    """A finished game: its id, engine, seat count, seed and seat tokens."""

    game_id: str
    game: AnyGame
    seats: int
    seed: bytes
    tokens: list[str]


async def play_seeded(
    app: App,
    game: AnyGame,
    seed: bytes,
    *,
    keep_hidden: bool = False,
    seats: int | None = None,
    options: dict[str, str] | None = None,
    until_kind: str = "",
) -> PlayedGame:
    """Create ``game`` dealt from ``seed``, claim every seat and play random legal commands to the end (or
    until a command makes an event of kind ``until_kind``)."""
    seats = seats or game.spec.min_seats
    summary = await app.games.create_game(game.spec.name, seats, options or {}, seed, keep_hidden=keep_hidden)
    tokens = [(await app.games.claim_seat(summary.game_id, s, f"p{s}"))[1] for s in range(seats)]
    rng = random.Random(seed)
    while True:
        spectator = await app.games.get_view(summary.game_id, None, None)
        if spectator.status == game_pb2.GAME_STATUS_FINISHED:
            return PlayedGame(summary.game_id, game, seats, seed, tokens)
        seat = min(spectator.pending_seats)
        mine = await app.games.get_view(summary.game_id, seat, tokens[seat])
        response = await app.games.commands.submit(
            summary.game_id,
            seat,
            tokens[seat],
            rng.choice(list(mine.legal_commands)),
            expected_version=mine.version,
            command_id=uuid.uuid4().hex,
        )
        if until_kind and any(inner(game, e).WhichOneof("kind") == until_kind for e in response.events):
            return PlayedGame(summary.game_id, game, seats, seed, tokens)


class Channels:
    """Reads one server's games over gRPC (``grpc_target``) and REST (``http_url``)."""

    def __init__(self, grpc_target: str, http_url: str, session: aiohttp.ClientSession) -> None:
        self._channel = grpc.aio.insecure_channel(grpc_target)
        self._games = game_service_pb2_grpc.GameServiceStub(self._channel)
        self._replays = replay_service_pb2_grpc.ReplayServiceStub(self._channel)
        self._http = http_url
        self._session = session

    async def close(self) -> None:
        """Close the gRPC channel."""
        await self._channel.close()

    # --- gRPC -------------------------------------------------------------------------------------

    def _meta(self, token: str | None) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {token}")] if token else []

    async def events(self, transport: str, game_id: str, seat: int | None, token: str | None) -> list[game_pb2.Event]:
        """ListEvents, every page."""
        events: list[game_pb2.Event] = []
        version = 1
        while True:
            if transport == "grpc":
                request = game_service_pb2.ListEventsRequest(game_id=game_id, from_version=version, page_size=1000)
                if seat is not None:
                    request.seat = seat
                page = await self._games.ListEvents(request, metadata=self._meta(token))
            else:
                query: dict[str, Any] = {"fromVersion": version, "pageSize": 1000}
                if seat is not None:
                    query["seat"] = seat
                body = await self._get(f"/v1/games/{game_id}/events", token, query)
                page = json_format.ParseDict(body, game_service_pb2.ListEventsResponse(), ignore_unknown_fields=True)
            events.extend(page.events)
            if not page.events or page.next_version > page.last_version:
                return events
            version = page.next_version

    async def watch(
        self, transport: str, game_id: str, seat: int | None, token: str | None, until: int = 0
    ) -> list[game_pb2.Event]:
        """WatchGame from the start: to the end of a finished game, or up to version ``until`` (then the
        stream is left)."""
        if transport == "grpc":
            request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=1)
            if seat is not None:
                request.seat = seat
            received = []
            async for reply in self._games.WatchGame(request, metadata=self._meta(token)):
                received.append(reply.event)
                if reply.event.version == until:
                    break
            return received
        query = {"fromVersion": "1"} | ({"seat": str(seat)} if seat is not None else {})
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        events = []
        async with self._session.get(f"{self._http}/v1/games/{game_id}:watch", params=query, headers=headers) as reply:
            assert reply.status == 200, await reply.text()
            async for message in sse_messages(reply):
                if message.event == "end":
                    break
                events.append(json_format.ParseDict(json.loads(message.data)["event"], game_pb2.Event()))
                if events[-1].version == until:
                    break
        return events

    async def view(
        self, transport: str, game_id: str, seat: int | None, token: str | None, at_version: int | None = None
    ) -> game_pb2.GameView:
        """GetView, latest or at a version."""
        if transport == "grpc":
            request = game_service_pb2.GetViewRequest(game_id=game_id)
            if seat is not None:
                request.seat = seat
            if at_version is not None:
                request.at_version = at_version
            return (await self._games.GetView(request, metadata=self._meta(token))).view
        query: dict[str, Any] = {}
        if seat is not None:
            query["seat"] = seat
        if at_version is not None:
            query["atVersion"] = at_version
        body = await self._get(f"/v1/games/{game_id}/view", token, query)
        return json_format.ParseDict(body["view"], game_pb2.GameView(), ignore_unknown_fields=True)

    async def export(self, transport: str, game_id: str) -> replay_service_pb2.GameExport:
        """ExportGame (raises for a game without an export: grpc.aio.AioRpcError or HttpError)."""
        if transport == "grpc":
            request = replay_service_pb2.ExportGameRequest(game_id=game_id)
            return (await self._replays.ExportGame(request)).export
        body = await self._get(f"/v1/games/{game_id}:export", None, {})
        return json_format.ParseDict(body["export"], replay_service_pb2.GameExport(), ignore_unknown_fields=True)

    async def replay_view(
        self, transport: str, export: replay_service_pb2.GameExport, at_version: int, seat: int | None
    ) -> game_pb2.GameView:
        """ViewReplay of an export."""
        request = replay_service_pb2.ViewReplayRequest(export=export, at_version=at_version)
        if seat is not None:
            request.seat = seat
        if transport == "grpc":
            return (await self._replays.ViewReplay(request)).view
        body = json_format.MessageToDict(request)
        async with self._session.post(f"{self._http}/v1/replays:view", json=body) as reply:
            data = await reply.json(content_type=None)
            if reply.status >= 300:
                raise HttpError(reply.status, data)
        return json_format.ParseDict(data["view"], game_pb2.GameView(), ignore_unknown_fields=True)

    async def _get(self, path: str, token: str | None, query: dict[str, Any]) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        params = {k: str(v) for k, v in query.items()}
        async with self._session.get(self._http + path, headers=headers, params=params) as reply:
            data = await reply.json(content_type=None)
            if reply.status >= 300:
                raise HttpError(reply.status, data)
            return data  # type: ignore[no-any-return]  # decoded JSON is Any


def inner(game: AnyGame, envelope: Any) -> Any:
    """The game's own message inside an Event or GameView envelope."""
    return getattr(envelope, game.spec.name)
