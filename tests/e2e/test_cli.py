"""The ``parlour`` command line against a real server: play a game with bots, read its log and a view,
and clear errors for bad input."""

from __future__ import annotations

import asyncio
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from parlour.cli import replay as replay_cli
from parlour.cli.main import build_parser
from parlour.client import GameClient
from parlour.v1 import game_pb2, game_service_pb2
from service.bootstrap import App, build_app
from service.config import Settings
from tests.conftest import RedisTarget, server_settings
from tests.e2e.helpers import finish, seated_game, stub

PARLOUR = str(Path(sys.executable).parent / "parlour")


async def _parlour(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        PARLOUR, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_play_then_events_and_view(target: str) -> None:
    """`parlour play` prints the results and the game id; `events` and `view --seat 2` read that game."""
    code, out, err = await _parlour(
        "play", "oldmen", "--bots", "random,random,random,random", "--server", target, "--seed", "cli-seed-of-a-deal"
    )
    assert code == 0, err
    game_id = re.search(r"game id: (\w+)", out)
    assert game_id, out
    assert len(re.findall(r"^\s+\d\s+\d\s+-?\d+\s+random-\d$", out, re.MULTILINE)) == 4
    code, events, err = await _parlour("events", game_id.group(1), "--server", target)
    assert code == 0, err
    lines = events.strip().splitlines()
    assert "game_started" in lines[0] and "match_finished" in lines[-1]
    code, view, err = await _parlour("view", game_id.group(1), "--seat", "2", "--server", target)
    assert code == 0, err
    assert "seat: 2" in view and "GAME_STATUS_FINISHED" in view


async def test_play_over_two_servers_spreads_the_game_over_both(
    app: App, redis_target: RedisTarget, key_prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`parlour play --server a,b` plays a game to its end over two real servers on one Redis, each of
    which is sent some of its commands."""
    second = build_app(server_settings(redis_target, key_prefix, tmp_path / "second"))
    await second.start()
    try:
        submitted: Counter[int] = Counter()
        for server in (app, second):
            monkeypatch.setattr(
                server.games.commands, "submit", _counted(server.games.commands.submit, submitted, server.grpc_port)
            )
        servers = f"127.0.0.1:{app.grpc_port},127.0.0.1:{second.grpc_port}"
        code, out, err = await _parlour("play", "oldmen", "--bots", "random,random,random", "--server", servers)
        assert code == 0, err
        game_id = re.search(r"game id: (\w+)", out)
        assert game_id, out
        async with GameClient(f"127.0.0.1:{second.grpc_port}") as client:
            summary = await client.game(game_id.group(1))
        assert summary.status == game_pb2.GAME_STATUS_FINISHED
        assert len(summary.results) == 3
        assert submitted[app.grpc_port] > 0 and submitted[second.grpc_port] > 0, submitted
    finally:
        await second.stop(grace=0)


def _counted(submit: Any, counter: Counter[int], port: int) -> Any:
    """``submit`` counting its calls under ``port``."""

    async def counting(*args: Any, **kwargs: Any) -> Any:
        counter[port] += 1
        return await submit(*args, **kwargs)

    return counting


async def test_parlour_bot_joins_an_open_seat_of_a_table_the_server_plays_the_rest_of(target: str) -> None:
    """`parlour bot --join` claims the open seat a person left in the web page's new table and plays it."""
    channel, games = stub(target)
    async with channel:
        bots = [game_service_pb2.HouseBot(seat=s, strategy="greedy") for s in (0, 2)]
        created = await games.CreateGame(game_service_pb2.CreateGameRequest(game="oldmen", seats=3, house_bots=bots))
        game_id = created.game.game_id
        code, out, err = await _parlour(
            "bot", "--name", "joiner", "--join", game_id, "--strategy", "greedy", "--server", target
        )
        assert code == 0, err
        summary = (await games.GetGame(game_service_pb2.GetGameRequest(game_id=game_id))).game
    assert f"plays seat 1 of game {game_id}" in out
    assert summary.status == game_pb2.GAME_STATUS_FINISHED
    assert sorted(r.player_name for r in summary.results) == ["greedy bot", "greedy bot", "joiner"]
    code, _, err = await _parlour("bot", "--name", "late", "--join", game_id, "--server", target)
    assert code == 1 and "over" in err


async def test_every_command_has_help() -> None:
    """Each sub-command explains itself with --help."""
    for command in ("play", "events", "view", "games", "serve"):
        code, out, _ = await _parlour(command, "--help")
        assert code == 0 and "usage: parlour" in out


async def test_bad_input_gets_a_clear_message(target: str) -> None:
    """An unknown bot strategy, an unknown game and an unreachable server each say what was wrong."""
    code, _, err = await _parlour("play", "oldmen", "--bots", "random,genius,random", "--server", target)
    assert code == 2 and "genius" in err and "random" in err
    code, _, err = await _parlour("play", "chess", "--bots", "random,random", "--server", target)
    assert code == 1 and "chess" in err and "oldmen" in err
    code, _, err = await _parlour("events", "nosuchgame", "--server", "127.0.0.1:1")
    assert code == 1 and "cannot reach the server" in err
    code, _, err = await _parlour("view", "nosuchgame", "--server", target)
    assert code == 1 and "no game" in err


async def test_replay_export_verify_show_and_a_forged_file(target: str, tmp_path: Path) -> None:
    """`parlour replay` exports a finished game, verifies it, shows its board at a version, and names the
    first bad event of a forged copy."""
    code, out, err = await _parlour("play", "oldmen", "--bots", "random,random,random", "--server", target)
    assert code == 0, err
    game_id = re.search(r"game id: (\w+)", out)
    assert game_id
    path = tmp_path / "game.json"
    code, out, err = await _parlour("replay", "export", game_id.group(1), "-o", str(path), "--server", target)
    assert code == 0 and "wrote" in out, err
    code, out, err = await _parlour("replay", "verify", str(path), "--server", target)
    assert code == 0 and out.startswith("verified"), out + err
    code, out, err = await _parlour("replay", "show", str(path), "--at", "7", "--seat", "1", "--server", target)
    assert code == 0, err
    assert "at version 7, seen by seat 1" in out and "Row:" in out
    assert "[10 cards]" not in out  # an export is of a public game: every hand shows
    text = path.read_text()
    forged = tmp_path / "forged.json"
    forged.write_text(text.replace('"seed": "', '"seed": "AAAA', 1))
    code, out, _ = await _parlour("replay", "verify", str(forged), "--server", target)
    assert code == 3 and "first bad event: 1" in out and "commitment" in out


async def _exported_file(tmp_path: Path) -> Path:
    """A finished game exported to a file by a server that is stopped before the file is used."""
    server = build_app(Settings(grpc_host="127.0.0.1", grpc_port=0, http_port=0, data_dir=tmp_path / "srv"))
    await server.start()
    try:
        async with GameClient(f"127.0.0.1:{server.grpc_port}") as client:
            game = await seated_game(client, seed=b"offline")
            await finish(client, game)
        export = await server.replays.export(game.game_id)
    finally:
        await server.stop(grace=0)
    path = tmp_path / "offline.parlour.json"
    path.write_text(json_format.MessageToJson(export), encoding="utf-8")
    return path


async def test_replay_verify_needs_no_server_when_the_rules_are_installed(tmp_path: Path) -> None:
    """With the server package installed, verify re-runs the file in process: no server runs, and the one
    named on the command line does not exist; a forged copy is caught the same way."""
    path = await _exported_file(tmp_path)
    nowhere = "127.0.0.1:1"
    code, out, err = await _parlour("replay", "verify", str(path), "--server", nowhere)
    assert code == 0 and out.startswith("verified (here, offline"), out + err
    forged = tmp_path / "forged.json"
    forged.write_text(path.read_text().replace('"seed": "', '"seed": "AAAA', 1))
    code, out, _ = await _parlour("replay", "verify", str(forged), "--server", nowhere)
    assert code == 3 and "first bad event: 1" in out and "offline" in out
    code, _, err = await _parlour("replay", "verify", str(path), "--remote", "--server", nowhere)
    assert code == 1 and "cannot reach" in err


async def test_replay_verify_with_the_sdk_alone_says_it_asks_which_server_and_how_to_verify_locally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the rules installed (the SDK alone: no verifier entry point), verify says it asks the
    server, which one, and how to verify locally."""
    path = await _exported_file(tmp_path)
    monkeypatch.setattr(replay_cli, "local_verifier", lambda: None)  # as if only the SDK were installed
    assert (
        await replay_cli._verify(build_parser().parse_args(["replay", "verify", str(path), "--server", "127.0.0.1:1"]))
        == 1
    )
    err = capsys.readouterr().err
    assert "the rules are not installed here" in err and "127.0.0.1:1" in err and "pip install parlour-server" in err
