"""TLS end to end: `parlour serve --tls-cert --tls-key` serves gRPC and HTTPS with one certificate (made
here: a test CA and a certificate for localhost signed by it); the SDK plays a whole game over TLS, the
Node bot, the `parlour bot` CLI and an in-process bot play a tournament over TLS, HTTPS answers REST, and
a plain-text client gets nowhere."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from parlour.bots import make_bot
from parlour.channel import Tls, open_channel
from parlour.client import GameClient
from parlour.runner import run_bot
from parlour.v1 import game_service_pb2 as game_pb
from parlour.v1 import game_service_pb2_grpc as game_grpc
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import finish, seated_game

ROOT = Path(__file__).resolve().parents[2]
ADMIN_KEY = "tls-admin-key-0123456789"
BOT_KEY = "tls-bot-key-0123456789"


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A CA certificate, and a certificate for localhost / 127.0.0.1 signed by it with its key: (ca, cert, key)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("Parlour test CA"))
        .issuer_name(_name("Parlour test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


@pytest.fixture
async def tls_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[tuple[App, Path]]:
    """A server with TLS on both ports, and the CA file that trusts its certificate."""
    ca, cert, key = _certificates(tmp_path)
    settings = server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY, tls_cert=cert, tls_key=key)
    server = build_app(settings)
    await server.start()
    yield server, ca
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def test_a_whole_game_is_played_over_tls_and_plain_text_is_refused(tls_app: tuple[App, Path]) -> None:
    """The SDK with the CA file plays a game to its end; REST answers over HTTPS; a plain-text gRPC
    client and a TLS client that does not trust the certificate both fail."""
    app, ca = tls_app
    target = f"localhost:{app.grpc_port}"
    async with GameClient(target, tls=Tls(str(ca))) as client:
        game = await seated_game(client, seats=3, seed=b"tls")
        await finish(client, game)
        summary = await client.game(game.game_id)
    assert summary.status == 2  # GAME_STATUS_FINISHED
    context = ssl.create_default_context(cafile=str(ca))
    url = f"https://localhost:{app.http_port}/v1/games/{game.game_id}"
    async with aiohttp.ClientSession() as session, session.get(url, ssl=context) as reply:
        assert reply.status == 200
        assert (await reply.json())["game"]["gameId"] == game.game_id
    for channel in (grpc.aio.insecure_channel(target), open_channel(target, Tls(None))):
        async with channel:
            with pytest.raises(grpc.aio.AioRpcError) as failure:
                await game_grpc.GameServiceStub(channel).GetGame(
                    game_pb.GetGameRequest(game_id=game.game_id), timeout=5
                )
            assert failure.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


async def test_the_node_bot_the_cli_bot_and_the_sdk_play_a_tournament_over_tls(tls_app: tuple[App, Path]) -> None:
    """Three bots, each connecting with --tls and the CA file (or the SDK's Tls), finish a one-table
    tournament; the subprocesses exit cleanly after their game."""
    assert (ROOT / "clients" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir(), "run make install"
    app, ca = tls_app
    target = f"localhost:{app.grpc_port}"
    admin = [("x-parlour-admin-key", ADMIN_KEY)]
    names = ["node-tls", "cli-tls", "sdk-tls"]
    async with open_channel(target, Tls(str(ca))) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        settings = pb.TournamentSettings(
            name="tls", game="oldmen", table_size=3, format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN, rounds=1
        )
        made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings), metadata=admin)
        tid = made.tournament.tournament_id
        for name in names:
            request = pb.RegisterBotRequest(tournament_id=tid, bot_name=name, bot_key=BOT_KEY)
            await stub.RegisterBot(request, metadata=admin)
        common = ["--server", target, "--key", BOT_KEY, "--tls", "--ca-file", str(ca)]
        node = await asyncio.create_subprocess_exec(
            "node", str(ROOT / "clients/node/bot.js"), "--name", "node-tls", *common, "--games", "1",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        cli = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "parlour.cli.main", "bot", "--name", "cli-tls", *common, "--games", "1",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        sdk = asyncio.create_task(
            run_bot(target, "sdk-tls", BOT_KEY, lambda g: make_bot("random", g), max_games=1, tls=Tls(str(ca)))
        )
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=admin)
        run = await asyncio.wait_for(sdk, timeout=120)
        _, node_err = await asyncio.wait_for(node.communicate(), timeout=120)
        _, cli_err = await asyncio.wait_for(cli.communicate(), timeout=120)
        assert node.returncode == 0, node_err.decode()
        assert cli.returncode == 0, cli_err.decode()
        assert len(run.ended) == 1
        watch = stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid))
        events = [reply.event async for reply in watch]
    finished = [e.table_finished for e in events if e.HasField("table_finished")]
    assert len(finished) == 1 and sorted(r.player_name for r in finished[0].results) == sorted(names)
