"""A second `parlour serve` on a port another one holds refuses to start, with one sentence and no
traceback, and the first server goes on serving (gRPC's SO_REUSEPORT would otherwise share the port)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVE = [sys.executable, "-m", "parlour.cli.main", "serve", "--host", "127.0.0.1", "--log-level", "info"]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


@dataclass(frozen=True)
class Running:
    """A `parlour serve` process and its two ports."""

    process: subprocess.Popen[str]
    grpc_port: int
    http_port: int


@pytest.fixture
def first(tmp_path: Path) -> Iterator[Running]:
    """A server on free ports, with its own embedded Redis."""
    command = [*SERVE, "--grpc-port", "0", "--http-port", "0", "--data-dir", str(tmp_path / "first")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV) as server:
        try:
            assert server.stdout is not None
            grpc_line, http_line = server.stdout.readline(), server.stdout.readline()
            grpc_port = re.search(r"gRPC on 127\.0\.0\.1:(\d+)", grpc_line)
            http_port = re.search(r"http://127\.0\.0\.1:(\d+)/", http_line)
            assert grpc_port and http_port, (grpc_line, http_line)
            yield Running(server, int(grpc_port.group(1)), int(http_port.group(1)))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)


def _second(tmp_path: Path, grpc_port: int, http_port: int) -> tuple[int, str, str]:
    """Run another server on the given ports; it must exit by itself. Returns its code, stdout, stderr.
    A server that starts instead (it prints its address) is stopped and reported as started."""
    command = [*SERVE, "--grpc-port", str(grpc_port), "--http-port", str(http_port)]
    command += ["--data-dir", str(tmp_path / "second")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV) as server:
        assert server.stdout is not None and server.stderr is not None
        line = server.stdout.readline()
        if line:  # it is serving: stop it so the test reports the failure instead of hanging
            server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=60)
    return server.returncode, line + out, err


def _serving(port: int) -> bool:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    return reply.status == health_pb2.HealthCheckResponse.SERVING


def test_a_taken_grpc_port_is_refused_not_shared(first: Running, tmp_path: Path) -> None:
    code, out, err = _second(tmp_path, first.grpc_port, 0)
    assert "gRPC on" not in out, "the second server started on the first one's gRPC port"
    assert code == 1
    assert f"parlour serve: cannot start: the gRPC port {first.grpc_port} on 127.0.0.1 is already in use" in err
    assert "--grpc-port" in err
    assert "Traceback" not in err and "Event loop is closed" not in err, err
    assert _serving(first.grpc_port)


def test_a_taken_http_port_is_refused_without_a_traceback(first: Running, tmp_path: Path) -> None:
    code, out, err = _second(tmp_path, 0, first.http_port)
    assert "REST/JSON" not in out
    assert code == 1
    assert f"parlour serve: cannot start: the HTTP port {first.http_port} on 127.0.0.1 is already in use" in err
    assert "--http-port" in err
    assert "Traceback" not in err and "Event loop is closed" not in err, err
    assert _serving(first.grpc_port)
