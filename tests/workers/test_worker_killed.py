"""A worker of `parlour serve --workers 2` is killed (SIGKILL) while several clients, each on a connection
of its own, play games and send a call that failed with UNAVAILABLE again with the same command id: every
acknowledged command is in the log once, the games finish on the other worker, and the parent starts a new
worker, which serves. The dead worker's per-process gauges leave /metrics; its counts stay."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import grpc

from parlour.v1 import game_pb2, game_service_pb2
from tests.e2e.test_metrics import scrape
from tests.workers.helpers import (
    Connection,
    SeatedGame,
    Server,
    Store,
    connections_on_every_worker,
    connections_per_worker,
    seated_game,
)
from tests.workers.helpers import serve_workers as serve

T = TypeVar("T")
GAMES = 8  # half of them played over connections to the worker that is killed
KILL_AFTER = 100  # acknowledged commands before the kill


class Client:
    """One connection playing one game to its end; a call that fails with UNAVAILABLE is sent again."""

    def __init__(self, connection: Connection, game: SeatedGame, acknowledged: dict[str, int]) -> None:
        self.connection = connection
        self.game = game
        self.acknowledged = acknowledged
        #: Calls that failed with UNAVAILABLE and were sent again.
        self.retries = 0

    async def _again(self, call: Callable[[], Awaitable[T]]) -> T:
        for _ in range(600):
            try:
                return await call()
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                self.retries += 1
                await asyncio.sleep(0.05)
        raise AssertionError("the server stayed unavailable for 30 s")

    async def play(self) -> None:
        """Submit the first legal command of a seat that must act until the game is over."""
        game_id, tokens = self.game.game_id, self.game.tokens
        while True:
            view = await self._again(partial(self.connection.view, game_id))
            if view.status == game_pb2.GAME_STATUS_FINISHED:
                return
            seat = view.pending_seats[0]
            own = await self._again(partial(self.connection.view, game_id, seat, tokens[seat]))
            command_id = f"{game_id}-{own.version}"
            request = game_service_pb2.SubmitCommandRequest(
                game_id=game_id, seat=seat, command=own.legal_commands[0], command_id=command_id
            )
            metadata = [("authorization", f"Bearer {tokens[seat]}")]
            reply = await self._again(partial(self.connection.games.SubmitCommand, request, metadata=metadata))
            self.acknowledged[command_id] = reply.version  # a duplicate too: the first try was stored


async def _acknowledged(acknowledged: dict[str, int], count: int) -> None:
    async with asyncio.timeout(120):
        while True:
            if len(acknowledged) >= count:
                return
            await asyncio.sleep(0.01)


async def _gauge_pids(server: Server) -> set[str]:
    samples = await scrape(f"http://127.0.0.1:{server.http_port}/metrics")
    return {dict(labels)["pid"] for name, labels in samples if name == "parlour_watchers"}


async def test_a_worker_killed_under_load_loses_no_acknowledged_command_and_comes_back(
    store: Store, tmp_path: Path
) -> None:
    async with serve(tmp_path, store, "--rate-calls", "0") as server:  # the load comes from one address
        spread = await connections_per_worker(server, 2, GAMES // 2)
        victim, survivor = spread
        connections = spread[victim] + spread[survivor]
        on = {victim: spread[victim][0], survivor: spread[survivor][0]}
        games = [await seated_game(on[survivor]) for _ in range(GAMES)]
        acknowledged: dict[str, int] = {}  # command id: the version its reply gave
        clients = [Client(c, g, acknowledged) for c, g in zip(connections, games, strict=True)]
        playing = [asyncio.create_task(client.play()) for client in clients]
        await _acknowledged(acknowledged, KILL_AFTER)
        os.kill(victim, signal.SIGKILL)
        at_kill = len(acknowledged)
        await asyncio.wait_for(asyncio.gather(*playing), 240)
        assert len(acknowledged) > at_kill, "the games went on after the kill"
        assert all(client.acknowledged for client in clients)
        on_victim = clients[: GAMES // 2]
        assert sum(client.retries for client in on_victim) > 0, "calls in flight on the killed worker failed"
        for game in games:
            logged = await on[survivor].commands(game.game_id)
            assert len(logged) == len(dict(logged)), "no command is stored twice"
            mine = {i: version for i, version in acknowledged.items() if i.startswith(f"{game.game_id}-")}
            assert mine.items() <= dict(logged).items(), "every acknowledged command is stored, at its version"
            view = await on[survivor].view(game.game_id)
            assert view.status == game_pb2.GAME_STATUS_FINISHED

        (restarted,) = await server.new_workers(2, besides={victim}) - {survivor}
        again = await connections_on_every_worker(server, 2)
        assert set(again) == {survivor, restarted}
        game = await seated_game(again[restarted], seats=3)  # the new worker serves
        assert (await again[restarted].view(game.game_id)).version > 0
        assert {line["pid"] for line in server.logged("server started")} >= {victim, survivor, restarted}
        async with asyncio.timeout(10):  # the parent drops the dead worker's per-process gauges
            while True:
                if await _gauge_pids(server) == {str(survivor), str(restarted)}:
                    break
                await asyncio.sleep(0.1)
        for connection in [*connections, *again.values()]:
            await connection.close()
