"""The project's own standards, checked by the test suite: architecture contracts, proto lint, the
Dockerfile lint, and the error table documented for clients."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import grpc

from service.app.errors import ERRORS

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_import_contracts_hold() -> None:
    """Engines import no I/O, clock or randomness; the client imports no server code; layers point down."""
    result = _run(str(BIN / "lint-imports"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_protos_follow_the_buf_style_guide() -> None:
    """buf lint (STANDARD rules) passes on proto/."""
    result = _run(str(BIN / "buf"), "lint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_passes_hadolint() -> None:
    """The server image's Dockerfile has no hadolint findings (Docker itself cannot run here)."""
    result = _run(str(BIN / "hadolint"), "Dockerfile")
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_runs_as_non_root_with_a_health_check() -> None:
    """The image drops root and checks the server's health."""
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^USER\s+(?!root)\S+", text, re.MULTILINE)
    assert re.search(r"^HEALTHCHECK\s", text, re.MULTILINE)


def test_error_table_in_the_proto_matches_the_server() -> None:
    """errors.proto documents exactly the reasons the server uses, with the same gRPC code and HTTP status."""
    text = (ROOT / "proto/parlour/v1/errors.proto").read_text()
    rows = re.findall(r"^// \| ([a-z_]+/[a-z_]+)\s*\| ([A-Z_]+)\s*\| (\d{3})\s*\|", text, re.MULTILINE)
    documented = {reason: (code, int(status)) for reason, code, status in rows}
    served = {reason: (kind.grpc_code.name, kind.http_status) for reason, kind in ERRORS.items()}
    assert documented == served
    assert all(isinstance(kind.grpc_code, grpc.StatusCode) for kind in ERRORS.values())


def _reasons_written_in_service() -> tuple[set[str], list[str]]:
    """Reasons given as literals to ServiceError(...) in service/, and every place that builds an
    HttpError or ErrorDetail from a literal reason instead (which would bypass the table)."""
    reasons: set[str] = set()
    bypasses: list[str] = []
    for path in sorted((ROOT / "service").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            literals = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            literals += [
                k.value.value
                for k in node.keywords
                if k.arg == "reason" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
            ]
            if name == "ServiceError" and literals:
                reasons.add(literals[0])
            elif name in ("HttpError", "ErrorDetail", "ErrorInfo") and literals:
                bypasses.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return reasons, bypasses


def test_every_reason_the_server_sends_is_in_the_table() -> None:
    """The reasons the server's code raises are all in the error table (and so documented in errors.proto),
    and no code builds an error reply from a reason of its own."""
    reasons, bypasses = _reasons_written_in_service()
    assert len(reasons) > 20
    assert reasons - set(ERRORS) == set()
    assert bypasses == []
    assert {"http/not_found", "http/method_not_allowed", "server/internal"} <= reasons


def test_generated_code_is_not_tracked() -> None:
    """Code generated from proto/ is made by the build and never committed (so it cannot go stale)."""
    result = _run("git", "ls-files", "proto", "clients/python/parlour")
    assert result.returncode == 0
    tracked = result.stdout.split()
    generated = [name for name in tracked if name.startswith("proto/parlour/") and not name.endswith(".proto")]
    assert generated == []
    assert not [name for name in tracked if name.startswith("clients/python/parlour/v1/")]
    # `parlour` is a namespace package shared by parlour-protocol (proto/) and the SDK: neither has an __init__.
    assert "clients/python/parlour/__init__.py" not in tracked
    assert "proto/parlour/__init__.py" not in tracked


async def test_the_server_parses_redis_replies_in_c(tmp_path: Path) -> None:
    """The server's Redis connections use hiredis's parser, not redis-py's pure-Python one (about 14 % of
    the server's time per command without it)."""
    from redis._parsers import _AsyncHiredisParser

    from service.store.connection import open_redis

    redis = open_redis(None, tmp_path)
    try:
        await redis.client.ping()
        connection = await redis.client.connection_pool.get_connection()
        assert isinstance(connection._parser, _AsyncHiredisParser)
        await redis.client.connection_pool.release(connection)
    finally:
        await redis.close()


def test_the_generated_code_is_what_the_one_recipe_makes(tmp_path: Path) -> None:
    """proto/codegen.py is the one recipe for the generated code: what it writes now is, file for file and
    byte for byte, what the editable install holds (made by `make proto`); building the wheel runs it too
    (proto/setup.py), so the wheel holds the same files."""
    result = _run(sys.executable, "proto/codegen.py", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    made = {p.name: p.read_bytes() for p in (tmp_path / "parlour" / "v1").iterdir() if p.suffix != ".proto"}
    installed = {
        p.name: p.read_bytes()
        for p in (ROOT / "proto" / "parlour" / "v1").iterdir()
        if p.is_file() and p.suffix != ".proto" and p.name != ".generated"
    }
    assert {name for name in made if name.endswith(".pyi")} >= {"game_pb2.pyi", "game_service_pb2_grpc.pyi"}
    assert sorted(made) == sorted(installed)
    assert [name for name in made if made[name] != installed[name]] == []
    setup = (ROOT / "proto" / "setup.py").read_text()
    assert "from codegen import generate" in setup and "grpc_tools" not in setup
