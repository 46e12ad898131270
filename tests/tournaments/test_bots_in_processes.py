"""A tournament whose bots run in separate processes: the JavaScript bot and the `parlour bot` command,
with two bots in this process, over real sockets."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import tournament_service_pb2 as pb
from service.bootstrap import App
from tests.tournaments.helpers import (
    BOT_KEY,
    assert_standings_match,
    create_and_register,
    standings,
    start,
    tournament_events,
    verify_game,
)

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = ROOT / "clients" / "node" / "bot.js"


async def test_node_bot_and_cli_bot_finish_a_tournament_with_in_process_bots(admin_app: App) -> None:
    """Four bots (Node.js, `parlour bot` subprocess, two in-process) play a 3-seat round robin to the end;
    the subprocesses exit cleanly after their three games and every bot played three games. The Node.js
    bot is given two replica addresses, one of them with no server behind it: it plays through the other."""
    assert (ROOT / "clients" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir(), "run make install"
    target = f"127.0.0.1:{admin_app.grpc_port}"
    names = ["node-js", "cli-greedy", "local-a", "local-b"]
    tid = await create_and_register(target, names, table_size=3, move_ms=5000)
    node = await asyncio.create_subprocess_exec(
        "node",
        str(NODE_BOT),
        "--server",
        f"127.0.0.1:{_closed_port()},{target}",
        "--name",
        "node-js",
        "--key",
        BOT_KEY,
        "--games",
        "3",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    cli = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "parlour.cli.main",
        "bot",
        "--server",
        target,
        "--name",
        "cli-greedy",
        "--key",
        BOT_KEY,
        "--strategy",
        "greedy",
        "--games",
        "3",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    local = [
        asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g), max_games=3))
        for n in ("local-a", "local-b")
    ]
    await start(target, tid)
    node_out, node_err = await asyncio.wait_for(node.communicate(), timeout=120)
    cli_out, cli_err = await asyncio.wait_for(cli.communicate(), timeout=120)
    await asyncio.wait_for(asyncio.gather(*local), timeout=60)
    assert node.returncode == 0, node_err.decode()
    assert cli.returncode == 0, cli_err.decode()
    assert b"3 games ended" in node_out and b"3 games ended" in cli_out
    for _ in range(50):
        reply = await standings(target, tid)
        if reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED:
            break
        await asyncio.sleep(0.1)
    assert reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED
    assert {s.bot_name: s.games for s in reply.standings} == dict.fromkeys(names, 3)
    events = await tournament_events(target, tid)
    assert_standings_match(list(reply.standings), events)
    game_ids = await _game_ids(admin_app, tid)
    for game_id in game_ids:
        verdict = await verify_game(target, game_id)
        assert verdict.verified, verdict.message
    stored = [await admin_app.store.read(t, 1, 100_000) for t in game_ids]
    assert not any(e.timed_out for log in stored for e in log), "every bot answered in time"


def _closed_port() -> int:
    """A local port with nothing listening on it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _game_ids(app: App, tid: str) -> list[str]:
    assert app.tournaments is not None
    state = await app.tournaments.load(tid)
    return list(state.tables)
