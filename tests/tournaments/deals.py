"""A duplicate-deal tournament played by bots over the network, paused while a later table of a deal runs.

``paused_deal`` creates a round robin tournament with duplicate seeds, connects its bots (BotService over
gRPC, each answering its turns with seeded random legal commands and keeping every message it receives)
and starts it. The first deal to reach its second table is the one looked at: every turn of that second
table (the *running* table) is left unanswered until the test calls :meth:`PausedDeal.go_on`, so the test
reads the deal's first table (the *held* table: over, while its deal is not) as long as it likes. The
bots' other games go on meanwhile.

``Reader`` reads a game through every channel an outside client has, over gRPC and REST, and turns a
refusal into its reason, so a test can say what each channel gave or why it gave nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiohttp
import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from engines.contract import AnyGame, fold
from parlour.v1 import bot_service_pb2 as bot_pb
from parlour.v1 import bot_service_pb2_grpc as bot_grpc
from parlour.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from parlour.v1 import tournament_service_pb2 as tournament_pb
from parlour.v1 import tournament_service_pb2_grpc as tournament_grpc
from service.app.observers import GameChange
from service.bootstrap import App
from tests.contract.channels import Channels
from tests.rest.harness import HttpError, sse_messages
from tests.tournaments.helpers import BOT_KEY, create_and_register, start

T = TypeVar("T")


# --- bots over the network ------------------------------------------------------------------------


@dataclass
class NetworkBot:
    """A bot connected over BotService: every message it received, and its seats by game."""

    name: str
    received: list[bot_pb.ConnectResponse] = field(default_factory=list)
    seats: dict[str, tuple[int, str]] = field(default_factory=dict)  # game id -> (seat, seat token)

    def ended(self, game_id: str) -> bot_pb.GameEnded | None:
        """The GameEnded the bot received for ``game_id``, if any."""
        return next((m.game_ended for m in self.received if m.game_ended.game_id == game_id), None)

    def games_ended(self) -> int:
        return sum(m.HasField("game_ended") for m in self.received)


async def _play(target: str, bot: NetworkBot, games: int, hold: Callable[[str], Awaitable[None]]) -> None:
    """Play as ``bot`` until ``games`` of its games have ended; ``hold(game_id)`` is awaited before each
    move (a held turn keeps the bot reading its stream and playing its other games)."""
    rng = random.Random(bot.name)
    writing = asyncio.Lock()
    moves: set[asyncio.Task[None]] = set()

    async def move(call: Any, turn: bot_pb.Turn) -> None:
        await hold(turn.game_id)
        command = rng.choice(list(turn.view.legal_commands))
        request = bot_pb.Move(
            game_id=turn.game_id,
            seat=turn.seat,
            command=command,
            expected_version=turn.view.version,
            command_id=uuid.uuid4().hex,
        )
        async with writing:
            await call.write(bot_pb.ConnectRequest(move=request))

    async with grpc.aio.insecure_channel(target) as channel:
        call = bot_grpc.BotServiceStub(channel).Connect()
        await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(bot_name=bot.name, bot_key=BOT_KEY)))
        try:
            while bot.games_ended() < games:
                message = await call.read()
                if not isinstance(message, bot_pb.ConnectResponse):
                    raise AssertionError(f"bot {bot.name}: the server ended the stream")
                bot.received.append(message)
                kind = message.WhichOneof("message")
                if kind == "assignment":
                    bot.seats[message.assignment.game_id] = (message.assignment.seat, message.assignment.seat_token)
                elif kind == "turn":
                    task = asyncio.create_task(move(call, message.turn))
                    moves.add(task)
                    task.add_done_callback(moves.discard)
        finally:
            for task in moves:
                task.cancel()
            call.cancel()


# --- the paused deal -------------------------------------------------------------------------------


@dataclass
class DealTracker:
    """An observer of the server's games: groups them by the seed they were dealt from, in the order they
    are created. The first game that is the second of its deal is the running table; the first game of
    that deal is the held table."""

    by_seed: dict[bytes, list[str]] = field(default_factory=dict)
    held: str = ""
    running: str = ""

    async def game_changed(self, change: GameChange) -> None:
        tables = self.by_seed.setdefault(bytes(change.state.seed), [])
        if change.game_id not in tables:
            tables.append(change.game_id)
            if len(tables) == 2 and not self.running:
                self.held, self.running = tables


@dataclass
class PausedDeal:
    """A running duplicate-deal tournament, paused on the running table of one deal (see the module doc)."""

    app: App
    game: AnyGame
    tournament_id: str
    bots: dict[str, NetworkBot]
    held: str
    running: str
    _gate: asyncio.Event
    _plays: list[asyncio.Task[None]]

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.app.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.app.http_port}"

    def seated(self, game_id: str) -> dict[int, NetworkBot]:
        """The bots of ``game_id`` by seat (as their assignments say)."""
        return {b.seats[game_id][0]: b for b in self.bots.values() if game_id in b.seats}

    def outsider(self) -> NetworkBot:
        """A bot of the tournament that has no seat at the held table."""
        return next(b for b in self.bots.values() if self.held not in b.seats)

    async def raw(self, game_id: str) -> list[Any]:
        """The server's own events of ``game_id`` (read from its store, unredacted)."""
        stored = await self.app.store.read(game_id, 1, 100_000)
        return [self.game.event_type.FromString(s.data) for s in stored]

    async def state(self, game_id: str) -> Any:
        """The engine state of ``game_id`` now (folded from the store)."""
        return fold(self.game, await self.raw(game_id))

    async def ended_everywhere(self, game_id: str) -> None:
        """Wait (up to 30 s) until every bot seated at ``game_id`` received its GameEnded."""

        async def ended() -> bool:
            return all(b.ended(game_id) for b in self.seated(game_id).values())

        await until(ended, f"every bot of {game_id} told that it ended", 30)

    async def go_on(self) -> None:
        """Answer the running table's turns again and wait (up to 4 minutes) until the tournament is over."""
        self._gate.set()
        async with asyncio.timeout(240):
            await asyncio.gather(*self._plays)
        async with grpc.aio.insecure_channel(self.grpc_target) as channel:
            stub = tournament_grpc.TournamentServiceStub(channel)
            request = tournament_pb.GetStandingsRequest(tournament_id=self.tournament_id)

            async def finished() -> bool:
                status = (await stub.GetStandings(request)).tournament.status
                return bool(status == tournament_pb.TOURNAMENT_STATUS_FINISHED)

            await until(finished, "the tournament's end", 30)


async def until(check: Callable[[], Awaitable[bool]], what: str, seconds: float) -> None:
    """Return once ``check()`` is true (asked every 20 ms); AssertionError after ``seconds``."""
    for _ in range(int(seconds / 0.02)):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {what} within {seconds} s")


@contextlib.asynccontextmanager
async def paused_deal(app: App, game: AnyGame, bots: int) -> AsyncIterator[PausedDeal]:
    """A one-round round robin of ``bots`` bots at tables of the game's fewest seats, with duplicate
    seeds, paused (within 2 minutes) on the first turn of the first deal's second table (see the module
    doc). The bots are stopped when the block ends."""
    size = game.spec.min_seats
    target = f"127.0.0.1:{app.grpc_port}"
    tracker = DealTracker()
    app.games.add_observer(tracker)
    gate, paused = asyncio.Event(), asyncio.Event()

    async def hold(game_id: str) -> None:
        if game_id == tracker.running and not gate.is_set():
            paused.set()
            await gate.wait()

    names = [f"{game.spec.name[:4]}-deal-{i}" for i in range(bots)]
    tournament_id = await create_and_register(target, names, game=game.spec.name, table_size=size, duplicate=True)
    players = {name: NetworkBot(name) for name in names}
    per_bot = math.comb(bots - 1, size - 1) * size  # the bot's groups, each played in every rotation
    plays = [asyncio.create_task(_play(target, bot, per_bot, hold)) for bot in players.values()]
    try:
        await start(target, tournament_id)
        async with asyncio.timeout(120):
            await paused.wait()

        async def seated() -> bool:  # every bot of the deal has its seat at the running table
            return all(tracker.running in b.seats for b in players.values() if tracker.held in b.seats)

        await until(seated, "seats given out at the running table", 30)
        yield PausedDeal(app, game, tournament_id, players, tracker.held, tracker.running, gate, plays)
    finally:
        gate.set()
        for task in plays:
            task.cancel()
        await asyncio.gather(*plays, return_exceptions=True)


# --- reading a game through every channel ---------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    """A call the server refused: its reason (from the error table) and sentence."""

    reason: str
    message: str


def _refusal(error: BaseException) -> Refused:
    if isinstance(error, grpc.aio.AioRpcError):
        reason = next((str(v) for k, v in error.trailing_metadata() or () if k == "parlour-error-reason"), "")
        return Refused(reason, error.details() or "")
    if isinstance(error, HttpError):
        return Refused(str(error.body.get("reason", "")), str(error.body.get("message", "")))
    raise error


async def attempt(call: Awaitable[T]) -> T | Refused:
    """What ``call`` gave, or why it was refused."""
    try:
        return await call
    except (grpc.aio.AioRpcError, HttpError) as error:
        return _refusal(error)


class Reader:
    """Reads one server's games the way outside clients do (see ``tests.contract.channels``), adding the
    channels that module does not have: a watch that may be refused over REST, summaries, stream tickets
    and the tournament's log."""

    def __init__(self, deal: PausedDeal, session: aiohttp.ClientSession) -> None:
        self.channels = Channels(deal.grpc_target, deal.http_url, session)
        self._channel = grpc.aio.insecure_channel(deal.grpc_target)
        self._games = game_service_pb2_grpc.GameServiceStub(self._channel)
        self._tournaments = tournament_grpc.TournamentServiceStub(self._channel)
        self._http = deal.http_url
        self._session = session
        self._tournament_id = deal.tournament_id

    async def close(self) -> None:
        await self.channels.close()
        await self._channel.close()

    @staticmethod
    def _meta(token: str | None) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {token}")] if token else []

    async def watch(self, transport: str, game_id: str, seat: int | None, token: str | None) -> list[game_pb2.Event]:
        """WatchGame (gRPC) or its SSE stream (REST) from the start to the end of a finished game."""
        if transport == "grpc":
            request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=1)
            if seat is not None:
                request.seat = seat
            return [r.event async for r in self._games.WatchGame(request, metadata=self._meta(token))]
        query = {"fromVersion": "1"} | ({"seat": str(seat)} if seat is not None else {})
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self._session.get(f"{self._http}/v1/games/{game_id}:watch", params=query, headers=headers) as reply:
            if reply.status != 200:
                raise HttpError(reply.status, await reply.json(content_type=None))
            events = []
            async for message in sse_messages(reply):
                if message.event == "end":
                    return events
                if message.event == "failure":
                    raise HttpError(200, json.loads(message.data))
                events.append(json_format.ParseDict(json.loads(message.data)["event"], game_pb2.Event()))
        return events

    async def summary(self, transport: str, game_id: str) -> game_service_pb2.GameSummary:
        """GetGame."""
        if transport == "grpc":
            return (await self._games.GetGame(game_service_pb2.GetGameRequest(game_id=game_id))).game
        body = await self._get(f"/v1/games/{game_id}", None)
        return json_format.ParseDict(body["game"], game_service_pb2.GameSummary(), ignore_unknown_fields=True)

    async def listed(self, transport: str, game_id: str) -> game_service_pb2.GameSummary:
        """The game's entry in ListGames (every page read until it is found)."""
        token = ""
        while True:
            if transport == "grpc":
                request = game_service_pb2.ListGamesRequest(page_size=100, page_token=token)
                page = await self._games.ListGames(request)
            else:
                body = await self._get("/v1/games", None, {"pageSize": "100", "pageToken": token})
                page = json_format.ParseDict(body, game_service_pb2.ListGamesResponse(), ignore_unknown_fields=True)
            found = [g for g in page.games if g.game_id == game_id]
            if found:
                return found[0]
            assert page.next_page_token, f"ListGames does not list {game_id}"
            token = page.next_page_token

    async def ticket(self, transport: str, game_id: str, seat: int, token: str | None) -> str:
        """CreateStreamTicket for ``seat``."""
        if transport == "grpc":
            request = game_service_pb2.CreateStreamTicketRequest(game_id=game_id, seat=seat)
            return str((await self._games.CreateStreamTicket(request, metadata=self._meta(token))).stream_ticket)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        url = f"{self._http}/v1/games/{game_id}/streamTickets"
        async with self._session.post(url, json={"seat": seat}, headers=headers) as reply:
            body = await reply.json(content_type=None)
            if reply.status >= 300:
                raise HttpError(reply.status, body)
            return str(body["streamTicket"])

    async def tournament(
        self, transport: str
    ) -> tuple[list[tournament_pb.TournamentEvent], list[tournament_pb.Standing], list[tournament_pb.Standing]]:
        """The tournament's log so far and the standings after its last event (WatchTournament, or its SSE
        stream, read until nothing more comes for half a second), and the standings GetStandings gives."""
        replies: list[tournament_pb.WatchTournamentResponse] = []
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5) as idle:  # a running tournament's stream stays open
                async for reply in self._tournament_stream(transport):
                    replies.append(reply)
                    idle.reschedule(asyncio.get_running_loop().time() + 0.5)
        request = tournament_pb.GetStandingsRequest(tournament_id=self._tournament_id)
        if transport == "grpc":
            standings = await self._tournaments.GetStandings(request)
        else:
            body = await self._get(f"/v1/tournaments/{self._tournament_id}/standings", None)
            standings = json_format.ParseDict(body, tournament_pb.GetStandingsResponse(), ignore_unknown_fields=True)
        last = list(replies[-1].standings) if replies else []
        return [r.event for r in replies], last, list(standings.standings)

    async def _tournament_stream(self, transport: str) -> AsyncIterator[tournament_pb.WatchTournamentResponse]:
        if transport == "grpc":
            request = tournament_pb.WatchTournamentRequest(tournament_id=self._tournament_id)
            stream = self._tournaments.WatchTournament(request)
            try:
                async for reply in stream:
                    yield reply
            finally:
                stream.cancel()
            return
        url = f"{self._http}/v1/tournaments/{self._tournament_id}:watch"
        async with self._session.get(url) as response:
            assert response.status == 200, await response.text()
            async for message in sse_messages(response):
                if message.event == "end":
                    return
                reply = tournament_pb.WatchTournamentResponse()
                yield json_format.ParseDict(json.loads(message.data), reply, ignore_unknown_fields=True)

    async def _get(self, path: str, token: str | None, query: dict[str, str] | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self._session.get(self._http + path, headers=headers, params=query or {}) as reply:
            body = await reply.json(content_type=None)
            if reply.status >= 300:
                raise HttpError(reply.status, body)
            return body  # type: ignore[no-any-return]  # decoded JSON is Any


# --- what a message tells of a deal ---------------------------------------------------------------


def messages_in(message: Message) -> list[Message]:
    """``message`` and every message inside it, depth first."""
    found = [message]
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        if isinstance(value, Message):
            found += messages_in(value)
            continue
        for item in value.values() if hasattr(value, "values") else value:  # a map, or a repeated field
            if isinstance(item, Message):
                found += messages_in(item)
    return found


def secrets_of(game: AnyGame, state: Any) -> set[tuple[Any, ...]]:
    """What the running table keeps secret from a spectator that every table of its deal shares: Old
    Men's hands (each seat's cards), Libertalia's voyages not reached yet (their characters and loot)."""
    if game.spec.name == "oldmen":
        seats = len(game.view(state, None).seats)
        return {("card", c.colour, c.value) for seat in range(seats) for c in game.view(state, seat).seats[seat].hand}
    if game.spec.name == "libertalia":
        return {("voyage", v) for v in range(state.voyage + 1, 4)}
    raise NotImplementedError(game.spec.name)


def told(game: AnyGame, messages: list[Message]) -> set[tuple[Any, ...]]:
    """Everything of the kinds :func:`secrets_of` names that ``messages`` show: every Old Men card, every
    Libertalia voyage whose characters and loot they show."""
    shown: set[tuple[Any, ...]] = set()
    for outer in messages:
        for inner in messages_in(outer):
            name = inner.DESCRIPTOR.name
            if name == "OldmenCard" and game.spec.name == "oldmen":
                shown.add(("card", inner.colour, inner.value))  # type: ignore[attr-defined]  # the message's own fields, found by its type's name
            elif name == "LibertaliaVoyageStarted" or (name == "LibertaliaView" and inner.boxes):  # type: ignore[attr-defined]  # the message's own fields, found by its type's name
                shown.add(("voyage", inner.voyage))  # type: ignore[attr-defined]  # the message's own fields, found by its type's name
    return shown
