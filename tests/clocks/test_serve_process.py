"""Deadlines are enforced across processes: games whose clocks were started by one server are timed out
by a real `parlour serve` process on the same Redis, exactly once per deadline."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.app.time_control import TimeControl
from service.bootstrap import App, build_app
from tests.clocks.test_timeouts import finished_view
from tests.conftest import RedisTarget, delete_prefix, server_settings


@pytest.fixture
async def local(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    server = build_app(server_settings(redis_target, key_prefix, tmp_path))
    await server.start()
    assert server.clocks is not None
    server.clocks.close()  # this server sets deadlines but leaves enforcing them to the other process
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def test_timeouts_are_applied_once_with_a_serve_process_on_the_same_redis(
    local: App, redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    command = [sys.executable, "-m", "parlour.cli.main", "serve", "--host", "127.0.0.1", "--grpc-port", "0"]
    command += ["--http-port", "0", "--data-dir", str(tmp_path / "serve"), "--redis", redis_target.url]
    command += ["--key-prefix", key_prefix, "--log-level", "info"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=30)).decode()
        assert re.search(r"gRPC on 127\.0\.0\.1:\d+", line), line
        assert local.clocks is not None
        games = []
        for index in range(3):
            summary = await local.games.create_game("oldmen", 3, {}, f"serve-process-{index:04}".encode())
            await local.clocks.start(summary.game_id, TimeControl(move_ms=100, max_timeouts=1), 3)
            games.append(summary.game_id)
        for game_id in games:
            await finished_view(local, game_id, seconds=60)
    finally:
        process.terminate()
        _, err = await asyncio.wait_for(process.communicate(), timeout=30)
    applied_there = [
        json.loads(line) for line in err.decode().splitlines() if '"command applied"' in line and "timeout:" in line
    ]
    applied_ids = [entry["command_id"] for entry in applied_there if not entry["duplicate"]]
    stored_ids: list[str] = []
    for game_id in games:
        stored = await local.store.read(game_id, 1, 100_000)
        assert [e.version for e in stored] == list(range(1, len(stored) + 1))
        ids = [e.command_id for e in stored if e.command]
        assert ids and len(ids) == len(set(ids)) and all(i.startswith(f"timeout:{game_id}:") for i in ids)
        stored_ids += ids
    assert sorted(applied_ids) == sorted(stored_ids), "the serve process applied every timeout, each once"
