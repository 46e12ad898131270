"""Real ``parlour serve --workers N`` processes for the tests, and connections of their own.

The kernel spreads connections, not calls, over the workers, and gRPC shares one TCP connection between the
channels of a process that go to the same address; a :class:`Connection` opens its own. Which worker a
connection reached is read from the server's log: a call with a request id the test chose is answered by
one worker, whose log line carries that id and the worker's ``pid``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc

from parlour.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from tests.tournaments.helpers import ADMIN_KEY

__all__ = [
    "Connection",
    "Server",
    "Store",
    "again",
    "connections_on_every_worker",
    "connections_per_worker",
    "serve_workers",
    "worker_pids",
]

T = TypeVar("T")
SERVE = [sys.executable, "-m", "parlour.cli.main", "serve", "--host", "127.0.0.1", "--log-level", "info"]


@dataclass(frozen=True)
class Store:
    """The Redis the workers share: their parent's own embedded one (``url`` empty), or ``REDIS_URL``."""

    label: str
    url: str = ""
    prefix: str = "parlour"

    def flags(self) -> list[str]:
        """The ``parlour serve`` flags that name it."""
        return ["--redis", self.url, "--key-prefix", self.prefix] if self.url else []


def worker_pids(parent: int) -> set[int]:
    """The worker processes of the ``parlour serve`` process ``parent`` that run now."""
    try:
        children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    except OSError:
        return set()
    pids = set()
    for child in children:
        with contextlib.suppress(OSError):
            if b"service.worker" in Path(f"/proc/{child}/cmdline").read_bytes():
                pids.add(int(child))
    return pids


class Connection:
    """A gRPC channel with a TCP connection of its own (so it may reach another worker than the others)."""

    def __init__(self, target: str) -> None:
        """Connect lazily to ``target``."""
        self.channel = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        self.games = game_service_pb2_grpc.GameServiceStub(self.channel)

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()

    async def view(self, game_id: str, seat: int | None = None, token: str = "") -> game_pb2.GameView:
        """GetView of a seat (with its token) or of a spectator."""
        request = game_service_pb2.GetViewRequest(game_id=game_id)
        if seat is not None:
            request.seat = seat
        reply = await self.games.GetView(request, metadata=_auth(token))
        return reply.view

    async def versions(self, game_id: str) -> list[int]:
        """The versions a spectator's WatchGame stream from version 1 delivers, to the game's end."""
        request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=1)
        return [reply.event.version async for reply in self.games.WatchGame(request) if reply.HasField("event")]

    async def commands(self, game_id: str) -> list[tuple[str, int]]:
        """The game's stored commands, in order: each one's id and the version of its last event (the
        events a command produced follow each other and carry its id)."""
        stored: list[tuple[str, int]] = []
        version = 1
        while True:
            request = game_service_pb2.ListEventsRequest(game_id=game_id, from_version=version, page_size=500)
            reply = await self.games.ListEvents(request)
            for event in reply.events:
                if not event.command_id:
                    continue
                if stored and stored[-1][0] == event.command_id:
                    stored[-1] = (event.command_id, event.version)
                else:
                    stored.append((event.command_id, event.version))
            if not reply.events:
                return stored
            version = reply.events[-1].version + 1

    async def command_ids(self, game_id: str) -> list[str]:
        """The ids of the game's stored commands, in order."""
        return [command_id for command_id, _ in await self.commands(game_id)]


async def again(call: Callable[[], Awaitable[T]], seconds: float = 30) -> T:
    """``call()``, made again while it fails with UNAVAILABLE (a worker killed under a connection)."""
    async with asyncio.timeout(seconds):
        while True:
            try:
                return await call()
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
            await asyncio.sleep(0.05)


def _auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")] if token else []


@dataclass
class SeatedGame:
    """A created game and the tokens of its seats."""

    game_id: str
    tokens: list[str]


async def seated_game(
    connection: Connection, game: str = "oldmen", seats: int = 4, *, time_control: Any = None, claim: bool = True
) -> SeatedGame:
    """Create a game and claim every seat (unless ``claim`` is false) over ``connection``."""
    request = game_service_pb2.CreateGameRequest(game=game, seats=seats)
    if time_control is not None:
        request.time_control.CopyFrom(time_control)
    summary = (await connection.games.CreateGame(request)).game
    tokens = []
    for seat in range(seats if claim else 0):
        claimed = game_service_pb2.ClaimSeatRequest(game_id=summary.game_id, seat=seat, player_name=f"p{seat}")
        tokens.append((await connection.games.ClaimSeat(claimed)).seat_token)
    return SeatedGame(summary.game_id, tokens)


@dataclass
class Server:
    """A running ``parlour serve --workers N`` process, its ports, and its log lines (JSON, parsed) so far."""

    process: asyncio.subprocess.Process
    grpc_port: int
    http_port: int
    lines: list[dict[str, Any]] = field(default_factory=list)

    @property
    def target(self) -> str:
        """Its gRPC ``host:port``."""
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def workers(self) -> set[int]:
        """The pids of its workers that run now."""
        return worker_pids(self.process.pid)

    def logged(self, event: str) -> Iterator[dict[str, Any]]:
        """Its log lines with this ``event`` so far."""
        return (line for line in list(self.lines) if line.get("event") == event)

    async def pid_of(self, connection: Connection) -> int:
        """The pid of the worker ``connection`` reached (the one that logs the request id of a probe)."""
        request_id = f"probe-{uuid.uuid4().hex[:12]}"
        with contextlib.suppress(grpc.aio.AioRpcError):  # not found: the call that is logged
            await connection.games.GetGame(
                game_service_pb2.GetGameRequest(game_id="no-such-game"),
                metadata=[("x-request-id", request_id)],
                timeout=30,
            )
        async with asyncio.timeout(20):
            while True:
                for line in list(self.lines):
                    if line.get("request_id") == request_id and "pid" in line:
                        return int(line["pid"])
                await asyncio.sleep(0.02)

    async def new_workers(self, count: int, *, besides: Collection[int] = (), seconds: float = 60) -> set[int]:
        """The worker pids once ``count`` run and none of them is in ``besides`` (waiting for restarts)."""
        async with asyncio.timeout(seconds):
            while True:
                pids = self.workers
                if len(pids) == count and not pids & set(besides):
                    return pids
                await asyncio.sleep(0.05)


async def connections_on_every_worker(server: Server, count: int, *, tries: int = 64) -> dict[int, Connection]:
    """One connection to each of the server's ``count`` workers, by pid (new connections until each worker
    has taken one: the kernel chooses)."""
    spread = await connections_per_worker(server, count, 1, tries=tries)
    return {pid: connections[0] for pid, connections in spread.items()}


async def connections_per_worker(
    server: Server, count: int, each: int, *, tries: int = 128
) -> dict[int, list[Connection]]:
    """``each`` connections to each of the server's ``count`` workers, by pid."""
    found: dict[int, list[Connection]] = {}
    for _ in range(tries):
        connection = Connection(server.target)
        pid = await server.pid_of(connection)
        mine = found.setdefault(pid, [])
        if len(mine) < each:
            mine.append(connection)
        else:
            await connection.close()
        if len(found) == count and all(len(c) == each for c in found.values()):
            return found
    for connections in found.values():
        for connection in connections:
            await connection.close()
    raise AssertionError(f"{tries} connections reached the workers {sorted(found)} too unevenly")


async def _read_log(stream: asyncio.StreamReader, lines: list[dict[str, Any]], path: Path) -> None:
    """Keep the server's standard error: every line in ``path``, the JSON ones parsed into ``lines``."""
    with path.open("ab") as copy:
        while raw := await stream.readline():
            copy.write(raw)
            copy.flush()
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = {"text": raw.decode(errors="replace")}
            lines.append(parsed if isinstance(parsed, dict) else {"text": raw.decode(errors="replace")})


@asynccontextmanager
async def serve_workers(
    data_dir: Path, store: Store, *flags: str, workers: int = 2, grpc_port: int = 0
) -> AsyncIterator[Server]:
    """``parlour serve --workers N`` on free ports (or ``grpc_port``) and ``store``; stopped with SIGTERM on
    exit (killed if it does not stop in 30 s). Its standard error is kept in ``data_dir/server.log``."""
    data_dir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - a local directory, once
    command = [*SERVE, "--workers", str(workers), "--grpc-port", str(grpc_port), "--http-port", "0"]
    command += ["--data-dir", str(data_dir), "--admin-key", ADMIN_KEY, *store.flags(), *flags]
    process = await asyncio.create_subprocess_exec(
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None and process.stderr is not None
    lines: list[dict[str, Any]] = []
    reader = asyncio.create_task(_read_log(process.stderr, lines, data_dir / "server.log"))
    try:
        first = (await asyncio.wait_for(process.stdout.readline(), timeout=120)).decode()
        second = (await asyncio.wait_for(process.stdout.readline(), timeout=10)).decode()
        grpc_found = re.search(r"gRPC on 127\.0\.0\.1:(\d+) .*\b(\d+) workers\)", first)
        http_found = re.search(r"http://127\.0\.0\.1:(\d+)/", second)
        assert grpc_found and http_found, f"the server did not start: {first!r} {second!r}"
        assert int(grpc_found.group(2)) == workers
        yield Server(process, int(grpc_found.group(1)), int(http_found.group(1)), lines)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
        await asyncio.wait_for(reader, 30)
