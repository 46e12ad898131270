"""The packages work outside this repository. The wire contract (``parlour-protocol``, built from
``proto/``) and the Python SDK (``parlour-client``) build their sdists and wheels from the tracked files
alone (no generated code); the two wheels, installed from these local files into a fresh virtual
environment, play a game; the protocol wheel alone gives ``parlour.v1`` and runs the engines, which import
nothing of the SDK. The Node bot's `npm pack` tarball installs into an empty folder and plays a tournament
game. All against a real server.

Third-party packages (grpcio, protobuf, ...) come from the package index (or pip's and npm's caches), as a
user's install would; Parlour's own come only from the files built here."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grimp
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


async def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run ``command`` to its end (the event loop, and so the test server, keeps running); its stdout."""
    process = await asyncio.create_subprocess_exec(
        *(str(c) for c in command), cwd=cwd, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=600)
    assert process.returncode == 0, f"{command}: {out.decode()}\n{err.decode()}"
    return out.decode()


@dataclass(frozen=True)
class Wheels:
    """The wheels built from a clean checkout, and the folder they were built in."""

    protocol: Path
    client: Path
    checkout: Path


async def _build(project: Path, dist: Path, tmp: Path) -> Path:
    """Build ``project``'s sdist, and its wheel from the sdist (as ``python -m build`` does); the wheel."""
    await _run(sys.executable, "-m", "build", "--outdir", dist, project, cwd=tmp)
    sdist, wheel = await asyncio.to_thread(lambda: (sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))))
    assert len(sdist) == 1 and len(wheel) == 1  # build makes the wheel from the sdist: both are tested
    return wheel[0]


@pytest.fixture(scope="module")
async def wheels(tmp_path_factory: pytest.TempPathFactory) -> Wheels:
    """``parlour-protocol`` and ``parlour-client`` built from the tracked files alone."""
    tmp = tmp_path_factory.mktemp("wheels")
    checkout = _clean_checkout(tmp / "checkout", "clients/python", "proto", "third_party", "engines")
    assert sorted({p.suffix for p in (checkout / "proto" / "parlour" / "v1").iterdir()}) == [".proto"]
    assert not (checkout / "clients" / "python" / "parlour" / "v1").exists()
    protocol = await _build(checkout / "proto", tmp / "dist-protocol", tmp)
    client = await _build(checkout / "clients" / "python", tmp / "dist-client", tmp)
    return Wheels(protocol, client, checkout)


async def _fresh_venv(at: Path, *wheels: Path) -> Path:
    """A new virtual environment with ``wheels`` installed (their dependencies within the project's pins);
    its python."""
    await asyncio.to_thread(venv.create, at, with_pip=True)
    python = at / "bin" / "python"
    await _run(python, "-m", "pip", "install", "--quiet", "-c", ROOT / "constraints.txt", *wheels, cwd=at)
    return python


#: Run in a fresh environment: where each Parlour distribution came from, and what ``parlour`` is there.
_INSPECT = """
import importlib.metadata as md, json, parlour
dists = {d.metadata["Name"]: json.loads(d.read_text("direct_url.json") or "{}").get("url", "")
         for d in md.distributions() if d.metadata["Name"].startswith("parlour")}
print(json.dumps({"dists": dists, "namespace": getattr(parlour, "__file__", None) is None,
                  "path": list(parlour.__path__)}))
"""


async def test_both_wheels_install_from_local_files_and_play_from_a_fresh_venv(
    wheels: Wheels, target: str, tmp_path: Path
) -> None:
    env_dir = tmp_path / "env"
    python = await _fresh_venv(env_dir, wheels.protocol, wheels.client)
    found = json.loads(await _run(python, "-c", _INSPECT, cwd=tmp_path))
    assert found["dists"] == {
        "parlour-protocol": wheels.protocol.as_uri(),
        "parlour-client": wheels.client.as_uri(),
    }  # both from the files built here, none from an index
    assert found["namespace"]  # no parlour/__init__.py: a namespace package over the two
    installed = await _run(
        python, "-c", "import parlour.v1.game_service_pb2 as m, parlour.client as c; print(m.__file__, c.__file__)",
        cwd=tmp_path,
    )  # fmt: skip
    assert all(path.startswith(str(env_dir)) for path in installed.split()), installed
    out = await _run(
        env_dir / "bin" / "parlour",
        "play",
        "oldmen",
        "--bots",
        "random,random,random",
        "--server",
        target,
        "--seed",
        "wheels-of-a-fresh-venv",
        cwd=tmp_path,
    )
    assert "game id:" in out


#: Run in an environment with parlour-protocol alone, from a folder holding only engines/: imports every
#: engine module, plays each game to its end, and reports what of ``parlour`` was imported.
_ENGINES_ALONE = """
import importlib, importlib.util, json, pkgutil, sys
import engines
for info in pkgutil.walk_packages(engines.__path__, "engines."):
    importlib.import_module(info.name)
from engines.playout import play
from engines.registry import GAMES
ends = {g.spec.name: len(play(g, g.spec.config(g.spec.min_seats), b"protocol-alone" * 2).events) for g in GAMES}
import parlour.v1.game_pb2
print(json.dumps({
    "ends": ends,
    "parlour": sorted(m for m in sys.modules if m.split(".")[0] == "parlour"),
    "sdk": importlib.util.find_spec("parlour.client") is not None,
}))
"""


async def test_the_protocol_wheel_alone_gives_the_wire_contract_and_runs_the_engines(
    wheels: Wheels, tmp_path: Path
) -> None:
    python = await _fresh_venv(tmp_path / "env", wheels.protocol)
    found = json.loads(await _run(python, "-c", _INSPECT, cwd=tmp_path))
    assert found["dists"] == {"parlour-protocol": wheels.protocol.as_uri()}
    assert found["namespace"]
    await _run(python, "-c", "import parlour.v1.game_pb2, parlour.v1.game_service_pb2_grpc", cwd=tmp_path)
    # The compiled files with their comments, which reflection and the OpenAPI descriptions are made from.
    commented = await _run(python, "-c", _COMMENTED_DESCRIPTORS, cwd=tmp_path)
    assert "game_service.proto" in commented and "SubmitCommand" in commented
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    report = json.loads(await _run(python, "-c", _ENGINES_ALONE, cwd=wheels.checkout, env=env))
    assert set(report["ends"]) == {"oldmen", "verraeter", "libertalia"}
    assert all(count > 10 for count in report["ends"].values())
    assert report["parlour"] and all(m == "parlour" or m.startswith("parlour.v1") for m in report["parlour"])
    assert not report["sdk"]


#: Prints, from the installed protocol wheel's descriptors.binpb, each file that carries comments and the
#: services' methods whose comments it holds.
_COMMENTED_DESCRIPTORS = """
from importlib import resources
from google.protobuf import descriptor_pb2
files = descriptor_pb2.FileDescriptorSet.FromString(
    resources.files("parlour.v1").joinpath("descriptors.binpb").read_bytes()
).file
for f in files:
    commented = [l for l in f.source_code_info.location if l.leading_comments.strip()]
    if commented:
        print(f.name, *(m.name for s in f.service for m in s.method))
"""


def _sdk_modules() -> set[str]:
    """The top-level modules and packages of the SDK (clients/python/parlour, the generated code aside)."""
    folder = ROOT / "clients" / "python" / "parlour"
    return {
        f"parlour.{p.stem}"
        for p in folder.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").is_file()) and p.stem != "v1"
    }


def test_the_engines_import_graph_holds_the_wire_contract_and_nothing_of_the_sdk() -> None:
    """Everything ``engines`` imports, directly or not, is stdlib, protobuf or ``parlour.v1``; and the
    import-linter contract that keeps it so names every module the SDK has."""
    graph = grimp.build_graph("engines", "parlour", include_external_packages=True, cache_dir=None)
    assert {m for m in graph.modules if m.startswith("parlour.v1.")}, "both portions of parlour are seen"
    assert _sdk_modules() <= set(graph.modules)
    upstream = graph.find_upstream_modules("engines", as_package=True)
    ours = {m for m in upstream if m.split(".")[0] == "parlour"}
    assert ours and all(m.startswith("parlour.v1.") for m in ours), sorted(ours)
    external = {m for m in upstream if "." not in m}  # grimp names an external package by its top level
    assert external - sys.stdlib_module_names == {"google"}  # protobuf
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    forbidding = [c for c in contracts if c["name"].startswith("Engines use the wire contract")]
    assert len(forbidding) == 1
    assert _sdk_modules() <= set(forbidding[0]["forbidden_modules"])


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
    listed = await _run("tar", "-tzf", tarball, cwd=tmp_path)
    assert "package/proto/parlour/v1/bot_service.proto" in listed.split()
    assert not [name for name in listed.split() if name.endswith((".py", ".pyi", ".toml"))]
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
