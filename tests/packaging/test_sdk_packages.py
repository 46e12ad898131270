"""The SDKs work outside this repository: the Python SDK's sdist and wheel, built from the tracked files
alone (no generated code), install into a fresh virtual environment and play a game; the Node bot's
`npm pack` tarball installs into an empty folder and plays a tournament game. Both against a real server.

Packages come from the package index (or pip's and npm's caches), as a user's install would."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import venv
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from parlour.bots import make_bot
from parlour.runner import run_bot
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY, create_and_register, start

ROOT = Path(__file__).resolve().parents[2]


def _clean_checkout(into: Path, *paths: str) -> Path:
    """Copy the files git tracks under ``paths`` (what a fresh clone has: no generated code) into ``into``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", *paths], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    for name in filter(None, listed.split("\0")):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    return into


async def _run(*command: str | Path, cwd: Path) -> str:
    """Run ``command`` to its end (the event loop, and so the test server, keeps running); its stdout."""
    process = await asyncio.create_subprocess_exec(
        *(str(c) for c in command), cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=600)
    assert process.returncode == 0, f"{command}: {out.decode()}\n{err.decode()}"
    return out.decode()


async def test_the_python_sdk_builds_from_a_clean_checkout_and_plays_from_a_fresh_venv(
    target: str, tmp_path: Path
) -> None:
    checkout = _clean_checkout(tmp_path / "checkout", "clients/python", "proto", "third_party")
    assert not (checkout / "clients" / "python" / "parlour" / "v1").exists()
    dist = tmp_path / "dist"
    await _run(sys.executable, "-m", "build", "--outdir", dist, checkout / "clients" / "python", cwd=tmp_path)
    sdist, wheel = await asyncio.to_thread(lambda: (sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))))
    assert len(sdist) == 1 and len(wheel) == 1  # build makes the wheel from the sdist: both are tested
    env_dir = tmp_path / "env"
    await asyncio.to_thread(venv.create, env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    await _run(python, "-m", "pip", "install", "--quiet", "-c", ROOT / "constraints.txt", wheel[0], cwd=tmp_path)
    installed = await _run(
        python, "-c", "import parlour.v1.game_service_pb2 as m, grpc; print(m.__file__)", cwd=tmp_path
    )
    assert installed.startswith(str(env_dir)), installed
    out = await _run(
        env_dir / "bin" / "parlour",
        "play",
        "oldmen",
        "--bots",
        "random,random,random",
        "--server",
        target,
        "--seed",
        "wheel-of-a-fresh-venv",
        cwd=tmp_path,
    )
    assert "game id:" in out


@pytest.fixture
async def admin_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    server = build_app(server_settings(redis_target, key_prefix, tmp_path / "server", admin_key=ADMIN_KEY))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def test_the_node_bot_packs_installs_elsewhere_and_plays(admin_app: App, tmp_path: Path) -> None:
    checkout = _clean_checkout(tmp_path / "checkout", "clients/node", "proto", "third_party")
    package = checkout / "clients" / "node"
    await _run("npm", "pack", "--pack-destination", tmp_path, cwd=package)
    (tarball,) = await asyncio.to_thread(lambda: list(tmp_path.glob("parlour-node-bot-*.tgz")))
    assert not (package / "proto").exists(), "npm pack leaves the checkout as it was"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    await _run("npm", "install", "--no-audit", "--no-fund", "--prefix", elsewhere, tarball, cwd=elsewhere)
    bot = elsewhere / "node_modules" / "parlour-node-bot" / "bot.js"
    await asyncio.to_thread(
        shutil.rmtree, checkout
    )  # nothing of the repository is left for the installed bot to lean on
    grpc_target = f"127.0.0.1:{admin_app.grpc_port}"
    tournament = await create_and_register(grpc_target, ["packed-node", "local-a", "local-b"], table_size=3)
    node = await asyncio.create_subprocess_exec(
        "node", str(bot), "--server", grpc_target, "--name", "packed-node", "--key", BOT_KEY, "--games", "1",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=elsewhere,
    )  # fmt: skip
    local = [
        asyncio.create_task(run_bot(grpc_target, name, BOT_KEY, lambda g: make_bot("random", g), max_games=1))
        for name in ("local-a", "local-b")
    ]
    await start(grpc_target, tournament)
    out, err = await asyncio.wait_for(node.communicate(), timeout=120)
    await asyncio.wait_for(asyncio.gather(*local), timeout=60)
    assert node.returncode == 0, err.decode()
    assert b"1 games ended" in out
