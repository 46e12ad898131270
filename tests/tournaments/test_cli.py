"""`parlour tournament create|register|start|watch|standings` against a real server."""

from __future__ import annotations

import asyncio
import re
import sys

from parlour.bots import make_bot
from parlour.runner import run_bot
from service.bootstrap import App
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY


async def _parlour(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "parlour.cli.main", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    return process.returncode or 0, out.decode(), err.decode()


async def test_the_tournament_commands_run_a_duplicate_tournament_and_show_the_final_table(admin_app: App) -> None:
    """Create needs the admin key; with it a duplicate-seed tournament is created, bots register, it starts,
    `watch` follows it to the end and prints the final table, and `standings` shows the same table."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    code, _, err = await _parlour("tournament", "create", "oldmen", "--table-size", "3", "--server", target)
    assert code == 1 and "admin key" in err
    code, out, err = await _parlour(
        "tournament",
        "create",
        "oldmen",
        "--table-size",
        "3",
        "--duplicate",
        "--move-ms",
        "5000",
        "--admin-key",
        ADMIN_KEY,
        "--server",
        target,
    )
    assert code == 0, err
    tid = out.strip()
    names = ["cli-a", "cli-b", "cli-c"]
    code, out, err = await _parlour(
        "tournament", "register", tid, "--name", "cli-a", "--key", BOT_KEY, "--server", target
    )
    assert code == 1 and "connect it once" in err  # a name no bot has connected with needs the admin
    for name in names:
        code, out, err = await _parlour(
            "tournament",
            "register",
            tid,
            "--name",
            name,
            "--key",
            BOT_KEY,
            "--admin-key",
            ADMIN_KEY,
            "--server",
            target,
        )
        assert code == 0, err
    bots = [
        asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("greedy", g), max_games=3)) for n in names
    ]
    code, out, err = await _parlour("tournament", "start", tid, "--admin-key", ADMIN_KEY, "--server", target)
    assert code == 0 and "started with 3 bots" in out, err
    code, watched, err = await _parlour("tournament", "watch", tid, "--server", target)
    assert code == 0, err
    await asyncio.wait_for(asyncio.gather(*bots), timeout=60)
    assert "finished" in watched and "games done 3" in watched
    code, table, err = await _parlour("tournament", "standings", tid, "--server", target)
    assert code == 0, err
    rows = [line.split() for line in table.splitlines() if re.match(r"\s+\d+\s+cli-", line)]
    assert sorted(row[1] for row in rows) == names
    assert all(row[2] == "3" for row in rows), "every bot played the deal from every seat"
    assert admin_app.tournaments is not None
    state = await admin_app.tournaments.load(tid)
    points = dict.fromkeys(names, 0)
    for game_id in state.tables:
        for result in (await admin_app.games.get_game(game_id)).results:
            points[result.player_name] += 3 - result.rank
    assert {row[1]: int(row[4]) for row in rows} == points
