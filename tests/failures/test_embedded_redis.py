"""The embedded Redis belongs to its server: it is started again on the same data when it dies, and it
stops when its server is killed."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from parlour.client import GameClient, ParlourError
from service.bootstrap import build_app
from service.config import Settings
from tests.e2e.helpers import seated_game

T = TypeVar("T")


def _redis_children(pid: int) -> list[int]:
    """The redis-server processes that are children of ``pid``."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if "redis-server" in Path(f"/proc/{c}/cmdline").read_text()]


async def _exited(pid: int) -> None:
    """Wait until process ``pid`` (not necessarily our child) has ended: its pidfd becomes readable."""
    descriptor = os.pidfd_open(pid)
    ended = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(descriptor, ended.set)
    try:
        await asyncio.wait_for(ended.wait(), 20)
    finally:
        loop.remove_reader(descriptor)
        os.close(descriptor)


async def _retried(call: Callable[[], Awaitable[T]]) -> T:
    """``call`` retried as a client does while the store is unavailable (the server restarts Redis)."""
    for _ in range(400):
        try:
            return await call()
        except ParlourError as error:
            assert error.reason == "store/unavailable", error
            await asyncio.sleep(0.05)
    raise AssertionError("the embedded Redis was not started again")


async def test_a_dead_embedded_redis_is_started_again_on_the_same_data(tmp_path: Path) -> None:
    settings = Settings(grpc_host="127.0.0.1", grpc_port=0, http_host="127.0.0.1", http_port=0, data_dir=tmp_path)
    app = build_app(settings)
    await app.start()
    try:
        async with GameClient(f"127.0.0.1:{app.grpc_port}") as client:
            game = await seated_game(client)
            assert app.redis.embedded is not None and app.redis.embedded.pid is not None
            first = app.redis.embedded.pid
            os.kill(first, signal.SIGTERM)
            await _exited(first)
            listed = await _retried(client.list_games)  # read from Redis itself (not a cached state)
            assert [g.game_id for g in listed.games] == [game.game_id]
            await client.create_game("oldmen", 4)
    finally:
        await app.stop(grace=0)


async def test_a_killed_server_does_not_leave_its_embedded_redis_running(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "parlour.cli.main", "serve", "--host", "127.0.0.1", "--grpc-port", "0"]
    command += ["--http-port", "0", "--data-dir", str(tmp_path), "--log-level", "warning"]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=30)).decode()
        assert re.search(r"gRPC on 127\.0\.0\.1:\d+", line), line
        redis = _redis_children(process.pid)
        assert len(redis) == 1
        process.kill()
        await process.wait()
        await _exited(redis[0])
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
