"""The project's own clients on a private server (`--require-api-key`): `parlour admin` makes, lists and
revokes API keys, releases bot names and revokes seat tokens with the admin key; `parlour play`, `parlour
bot`, the SDK (`GameClient`, `run_bot`) and the Node bot send an API key (`--api-key`, `api_key=`,
`PARLOUR_API_KEY`) and are refused with a sentence saying what to do without one. Real servers, real
sockets, the command line and the Node bot as subprocesses."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import grpc
import pytest

from parlour.bots import make_bot
from parlour.client import AdminClient, GameClient, ParlourError
from parlour.runner import run_bot
from parlour.v1 import game_pb2, game_service_pb2
from parlour.v1 import tournament_service_pb2 as tournament_pb
from parlour.v1 import tournament_service_pb2_grpc as tournament_grpc
from service.app.errors import ServiceError
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import stub
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY, create_and_register, start

ROOT = Path(__file__).resolve().parents[2]
PARLOUR = str(Path(sys.executable).parent / "parlour")
NODE_BOT = ROOT / "clients" / "node" / "bot.js"
PLAY = ("play", "oldmen", "--bots", "random,random,random")


@pytest.fixture
async def private_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    """A server run with --require-api-key and the admin key ADMIN_KEY."""
    settings = server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, require_api_key=True)
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


@pytest.fixture
def private(private_app: App) -> str:
    return f"127.0.0.1:{private_app.grpc_port}"


@pytest.fixture(autouse=True)
def _no_keys_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys come only from what each test gives (not from the environment the tests run in)."""
    for name in ("PARLOUR_API_KEY", "PARLOUR_ADMIN_KEY", "PARLOUR_BOT_KEY", "PARLOUR_SERVER"):
        monkeypatch.delenv(name, raising=False)


async def _run(*command: str | Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``command`` with this environment plus ``env``; its exit status, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        *(str(c) for c in command),
        env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with _ended(process):
        out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@contextlib.asynccontextmanager
async def _ended(*processes: asyncio.subprocess.Process) -> AsyncIterator[None]:
    """Kill those of ``processes`` still running when the block is left (a failed or timed-out test)."""
    try:
        yield
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()


def _parlour(*args: str, env: dict[str, str] | None = None) -> Awaitable[tuple[int, str, str]]:
    return _run(PARLOUR, *args, env=env)


async def _new_key(target: str, name: str) -> str:
    """An API key made with `parlour admin create-key` (the admin key from the environment)."""
    code, out, err = await _parlour(
        "admin", "create-key", name, "--server", target, env={"PARLOUR_ADMIN_KEY": ADMIN_KEY}
    )
    assert code == 0, err
    assert f"API key {name!r} made" in err and "shown only this once" in err
    key = out.strip()
    assert out == key + "\n" and key.startswith("pk_"), out  # stdout is the key alone, for scripts
    return key


async def test_parlour_admin_makes_a_key_that_parlour_play_and_bot_join_need(private: str) -> None:
    """Without the admin key `parlour admin` says which option gives it; with a wrong one, which key the
    server wants. The key it makes lets `parlour play` finish a game (by --api-key or PARLOUR_API_KEY);
    without it `play` and `bot --join` are refused with a sentence naming the option."""
    code, _, err = await _parlour("admin", "create-key", "alice", "--server", private)
    assert code == 2
    assert "admin key" in err and "--admin-key KEY" in err and "PARLOUR_ADMIN_KEY" in err
    code, _, err = await _parlour("admin", "create-key", "alice", "--server", private, "--admin-key", "not-the-key")
    assert code == 1
    assert "not this server's admin key" in err and "parlour serve --admin-key" in err
    key = await _new_key(private, "alice")

    code, out, err = await _parlour(*PLAY, "--server", private)
    assert (code, out) == (1, "")
    assert err.startswith("parlour play: this server needs an API key"), err
    assert "--api-key KEY or PARLOUR_API_KEY" in err
    code, out, err = await _parlour(*PLAY, "--server", private, "--api-key", key)
    assert code == 0, err
    assert "is over" in out and re.search(r"game id: \w+", out)
    code, out, err = await _parlour(*PLAY, "--server", private, env={"PARLOUR_API_KEY": key})
    assert code == 0 and "game id:" in out, err

    channel, games = stub(private)
    async with channel:
        house = [game_service_pb2.HouseBot(seat=s, strategy="greedy") for s in (0, 2)]
        request = game_service_pb2.CreateGameRequest(game="oldmen", seats=3, house_bots=house)
        created = await games.CreateGame(request, metadata=[("x-parlour-api-key", key)])
        game_id = created.game.game_id
        code, _, err = await _parlour("bot", "--name", "joiner", "--join", game_id, "--server", private)
        assert code == 1 and "needs an API key" in err and "--api-key" in err
        joined = await _parlour("bot", "--name", "joiner", "--join", game_id, "--server", private, "--api-key", key)
        assert joined[0] == 0, joined[2]
        summary = (await games.GetGame(game_service_pb2.GetGameRequest(game_id=game_id))).game
    assert summary.status == game_pb2.GAME_STATUS_FINISHED
    assert "joiner" in [r.player_name for r in summary.results]


async def test_parlour_admin_lists_and_revokes_keys_and_a_revoked_key_is_refused(private: str) -> None:
    """`list-keys` prints the names; after `revoke-key` the key is refused at once, on any call, with a
    sentence saying to ask the admin for another; the other key still plays."""
    admin = ("--server", private, "--admin-key", ADMIN_KEY)
    code, out, err = await _parlour("admin", "list-keys", *admin)
    assert (code, out) == (0, "") and "no API keys" in err
    alice, bob = await _new_key(private, "alice"), await _new_key(private, "bob")
    code, out, err = await _parlour("admin", "list-keys", *admin)
    assert (code, out) == (0, "alice\nbob\n"), err
    assert alice not in out and bob not in out  # names only: the server keeps no key to show

    code, out, err = await _parlour("admin", "revoke-key", "alice", *admin)
    assert code == 0 and "'alice' revoked" in out, err
    code, out, _ = await _parlour("admin", "list-keys", *admin)
    assert (code, out) == (0, "bob\n")
    code, _, err = await _parlour(*PLAY, "--server", private, "--api-key", alice)
    assert code == 1
    assert "not valid here" in err and "auth/bad_api_key" in err and "ask its admin for a new one" in err
    code, _, err = await _parlour("games", "--server", private, "--api-key", alice)  # a sent key is checked
    assert code == 1 and "not valid here" in err
    code, _, err = await _parlour("admin", "revoke-key", "alice", *admin)
    assert code == 1 and "no API key of that name" in err
    code, out, err = await _parlour(*PLAY, "--server", private, "--api-key", bob)
    assert code == 0 and "game id:" in out, err


async def _registered(app: App, name: str, bot_key: str) -> None:
    """Wait until bot ``name`` is registered with ``bot_key`` on ``app``."""
    assert app.bots is not None
    for _ in range(200):
        try:
            await app.bots.authenticate(name, bot_key, register=False)
            return
        except ServiceError as error:
            assert error.reason == "bot/unknown", error
        await asyncio.sleep(0.05)
    raise AssertionError(f"bot {name!r} was never registered")


async def _connect_once(app: App, target: str, name: str, bot_key: str, api_key: str) -> None:
    """Connect bot ``name`` with ``run_bot`` (sending ``api_key``) until its name is registered."""
    stop = asyncio.Event()
    bot = asyncio.create_task(
        run_bot(target, name, bot_key, lambda g: make_bot("random", g), stop=stop, api_key=api_key)
    )
    await _registered(app, name, bot_key)
    stop.set()
    await asyncio.wait_for(bot, 30)


async def test_the_sdk_sends_its_api_key_and_parlour_admin_releases_names_and_revokes_seats(
    private_app: App, private: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`GameClient` and `run_bot` send the key given, else PARLOUR_API_KEY ("" sends none); `AdminClient`
    needs an admin key. `parlour admin release-bot` frees a name for another bot key, and `revoke-seat`
    makes a seat's token worthless."""
    with pytest.raises(ValueError, match="PARLOUR_ADMIN_KEY"):
        AdminClient(private)
    async with AdminClient(private, admin_key=ADMIN_KEY) as admin:
        key = await admin.create_api_key("sdk")
        assert await admin.api_keys() == ["sdk"]

    async with GameClient(private) as client:
        with pytest.raises(ParlourError) as refused:
            await client.create_game("oldmen", 3)
        assert refused.value.reason == "auth/missing_api_key"
    async with GameClient(private, api_key=key) as client:
        game_id = (await client.create_game("oldmen", 3)).game_id
        seat, token = await client.claim_seat(game_id, "p0")
    monkeypatch.setenv("PARLOUR_API_KEY", key)
    async with GameClient(private) as client:
        await client.create_game("oldmen", 3)
    async with GameClient(private, api_key="") as client:
        with pytest.raises(ParlourError) as refused:
            await client.create_game("oldmen", 3)
        assert refused.value.reason == "auth/missing_api_key"
    monkeypatch.delenv("PARLOUR_API_KEY")

    with pytest.raises(ParlourError) as refused:
        await asyncio.wait_for(run_bot(private, "famous", BOT_KEY, lambda g: make_bot("random", g)), 30)
    assert refused.value.reason == "auth/missing_api_key"  # a new name needs a key
    await _connect_once(private_app, private, "famous", BOT_KEY, key)
    other = "another-bot-key-0123456789"
    with pytest.raises(ParlourError) as refused:
        await asyncio.wait_for(run_bot(private, "famous", other, lambda g: make_bot("random", g), api_key=key), 30)
    assert refused.value.reason == "auth/bad_bot_key"
    admin_args = ("--server", private, "--admin-key", ADMIN_KEY)
    code, out, err = await _parlour("admin", "release-bot", "famous", *admin_args)
    assert code == 0 and "'famous' released" in out, err
    await _connect_once(private_app, private, "famous", other, key)
    code, _, err = await _parlour("admin", "release-bot", "nobody", *admin_args)
    assert code == 1 and "no bot named 'nobody'" in err

    async with GameClient(private, api_key=key) as client:
        await client.view(game_id, seat, token)
        code, out, err = await _parlour("admin", "revoke-seat", game_id, str(seat), *admin_args)
        assert code == 0 and f"seat {seat} of game {game_id}" in out, err
        with pytest.raises(ParlourError) as refused:
            await client.view(game_id, seat, token)
        assert refused.value.reason == "auth/bad_token"


async def _register_itself(target: str, tournament_id: str, name: str, process: asyncio.subprocess.Process) -> None:
    """Register bot ``name`` (running in ``process``) by its own name and key, once it has connected."""
    request = tournament_pb.RegisterBotRequest(tournament_id=tournament_id, bot_name=name, bot_key=BOT_KEY)
    async with grpc.aio.insecure_channel(target) as channel:
        tournaments = tournament_grpc.TournamentServiceStub(channel)
        for _ in range(400):
            assert process.returncode is None, f"{name} exited: {await process.communicate()}"
            try:
                await tournaments.RegisterBot(request)
                return
            except grpc.aio.AioRpcError as error:
                assert "there is no bot named" in (error.details() or ""), error
            await asyncio.sleep(0.05)
    raise AssertionError(f"{name} never connected")


async def test_the_node_bot_and_parlour_bot_send_their_api_key_and_play_a_tournament_game(private: str) -> None:
    """Without a key the Node bot's new name is refused: it exits with a sentence naming --api-key. With
    --api-key (the Node bot) and PARLOUR_API_KEY (`parlour bot`) both register their names, register
    themselves in a tournament and play its game to the end."""
    assert (ROOT / "clients" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir(), "run make install"
    key = await _new_key(private, "bots")
    node_bot = ("node", NODE_BOT, "--server", private, "--name", "node-js", "--key", BOT_KEY, "--games", "1")
    code, out, err = await _run(*node_bot)
    assert (code, out) == (1, "")
    assert "node bot refused" in err and "needs an API key" in err and "--api-key KEY or PARLOUR_API_KEY" in err

    tournament_id = await create_and_register(private, ["local"], table_size=3)
    node = await asyncio.create_subprocess_exec(
        *(str(c) for c in node_bot), "--api-key", key, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    cli = await asyncio.create_subprocess_exec(
        PARLOUR, "bot", "--server", private, "--name", "cli-bot", "--key", BOT_KEY, "--games", "1",
        env={**os.environ, "PARLOUR_API_KEY": key}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with _ended(node, cli):
        await _register_itself(private, tournament_id, "node-js", node)
        await _register_itself(private, tournament_id, "cli-bot", cli)
        local = asyncio.create_task(run_bot(private, "local", BOT_KEY, lambda g: make_bot("random", g), max_games=1))
        await start(private, tournament_id)
        node_out, node_err = await asyncio.wait_for(node.communicate(), 120)
        cli_out, cli_err = await asyncio.wait_for(cli.communicate(), 120)
        await asyncio.wait_for(local, 60)
    assert node.returncode == 0, node_err.decode()
    assert cli.returncode == 0, cli_err.decode()
    assert b"1 games ended" in node_out and b"1 games ended" in cli_out
