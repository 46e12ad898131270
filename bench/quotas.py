"""Quota benchmark: what one hostile client gets from a server with the default limits.

Usage: python bench/quotas.py [--seconds S] [--streams N]

The real server (service.bootstrap.build_app, embedded Redis, default quotas) runs in this process; a second
process plays one client on one address. It reports, for ``--seconds`` each:

- CreateGame as fast as it can: games created per second, and calls refused with RESOURCE_EXHAUSTED;
- ClaimSeat on fresh games as fast as it can (creating them as it goes): seats claimed per second, refusals;
- ``--streams`` WatchGame streams opened at once: how many are held open, how many are refused.

The floods run in that order: streams, claims, then creation (each quota is separate, but claiming needs
fresh games, which the creation quota bounds too).

Before the quotas (found by an outside audit) one client created 395 games/s and opened 2,300 idle streams
until the Redis connection pool ran out; with them, creation is held to the ``--rate-create-games`` rate
and streams to ``--max-streams-per-client``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import grpc

from parlour.v1 import game_service_pb2, game_service_pb2_grpc
from service.bootstrap import build_app
from service.config import Settings


@dataclass
class Flood:
    """One flood's counts."""

    name: str
    accepted: int = 0
    refused: int = 0
    seconds: float = 0.0


def run_floods(target: str, seconds: float, streams: int) -> list[Flood]:
    """Child-process entry point."""
    return asyncio.run(_floods(target, seconds, streams))


async def _floods(target: str, seconds: float, streams: int) -> list[Flood]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        watched = (await stub.CreateGame(_new_game())).game.game_id
        held = await _stream_flood(stub, streams, watched)
        claims = await _claim_flood(stub, seconds)
        create = await _flood("CreateGame", seconds, lambda: stub.CreateGame(_new_game()))
    return [create, claims, held]


def _new_game() -> game_service_pb2.CreateGameRequest:
    return game_service_pb2.CreateGameRequest(game="oldmen", seats=4)


async def _flood(name: str, seconds: float, call: object) -> Flood:
    flood = Flood(name)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        try:
            await call()  # type: ignore[operator]  # each call is an async callable of its own signature
            flood.accepted += 1
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            flood.refused += 1
    flood.seconds = time.perf_counter() - start
    return flood


async def _claim_flood(stub: game_service_pb2_grpc.GameServiceStub, seconds: float) -> Flood:
    flood = Flood("ClaimSeat (on fresh games)")
    start = time.perf_counter()
    game_id, free = "", 0
    while time.perf_counter() - start < seconds:
        if free == 0:
            try:
                game_id, free = (await stub.CreateGame(_new_game())).game.game_id, 4
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                flood.name += ", until no more games could be created"
                break
        try:
            await stub.ClaimSeat(game_service_pb2.ClaimSeatRequest(game_id=game_id, player_name="flood"))
            flood.accepted += 1
            free -= 1
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            flood.refused += 1
    flood.seconds = time.perf_counter() - start
    return flood


async def _stream_flood(stub: game_service_pb2_grpc.GameServiceStub, count: int, game_id: str) -> Flood:
    """Open ``count`` streams at once from version 1 and hold them all; a stream that yields its first event
    is open. Everything is closed at the end."""
    flood = Flood(f"WatchGame streams held at once ({count} asked)")
    release = asyncio.Event()
    opened = 0

    async def hold() -> bool:
        nonlocal opened
        call = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id, from_version=1))
        try:
            await call.read()
            opened += 1
            if opened + flood.refused == count:
                release.set()
            await release.wait()
            return True
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            flood.refused += 1
            if opened + flood.refused == count:
                release.set()
            return False
        finally:
            call.cancel()

    start = time.perf_counter()
    results = await asyncio.gather(*(hold() for _ in range(count)))
    flood.accepted = sum(results)
    flood.seconds = time.perf_counter() - start
    return flood


async def measure(seconds: float, streams: int, data_dir: Path) -> list[Flood]:
    """Serve with the default quotas while the child process floods."""
    settings = Settings(
        grpc_host="127.0.0.1", grpc_port=0, http_host="127.0.0.1", http_port=0, data_dir=data_dir, log_level="warning"
    )
    app = build_app(settings)
    await app.start()
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, run_floods, f"127.0.0.1:{app.grpc_port}", seconds, streams)
    finally:
        pool.shutdown()
        await app.stop(grace=0)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the floods and print the table."""
    parser = argparse.ArgumentParser(description="Parlour quota benchmark (see the module docstring).")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each flood (default 3)")
    parser.add_argument("--streams", type=int, default=200, help="streams one client tries to hold (default 200)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="parlour-quotas-") as data_dir:
        floods = asyncio.run(measure(args.seconds, args.streams, Path(data_dir)))
    print("One client against the default quotas\n")
    print("| flood | accepted | per second | refused (RESOURCE_EXHAUSTED) |")
    print("|---|---|---|---|")
    for flood in floods:
        rate = f"{flood.accepted / flood.seconds:.0f}" if flood.seconds and "streams" not in flood.name else "-"
        print(f"| {flood.name} | {flood.accepted} | {rate} | {flood.refused} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
