"""`parlour serve` runs the gRPC and the HTTP server in one process and says where both are."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
import requests

from parlour.v1 import game_service_pb2, game_service_pb2_grpc
from service.config import Settings


def test_the_http_port_comes_from_the_environment() -> None:
    assert Settings().http_port == 8080
    assert Settings.from_env({"PARLOUR_HTTP_PORT": "9090"}).http_port == 9090
    assert Settings.from_env({"PARLOUR_WEB_DIR": "site"}).web_dir == Path("site")
    with pytest.raises(ValueError, match="PARLOUR_HTTP_PORT"):
        Settings.from_env({"PARLOUR_HTTP_PORT": "http"})


def test_serve_opens_both_ports_and_prints_both_addresses(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "parlour.cli.main", "serve", "--host", "127.0.0.1", "--grpc-port", "0"]
    command += ["--http-port", "0", "--data-dir", str(tmp_path), "--log-level", "warning"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as server:
        try:
            assert server.stdout is not None
            grpc_line, http_line = server.stdout.readline(), server.stdout.readline()
            grpc_port = re.search(r"gRPC on 127\.0\.0\.1:(\d+)", grpc_line)
            http_url = re.search(r"(http://127\.0\.0\.1:\d+)/", http_line)
            assert grpc_port and http_url, (grpc_line, http_line)
            types = requests.get(http_url.group(1) + "/v1/gameTypes", timeout=10).json()["gameTypes"]
            with grpc.insecure_channel(f"127.0.0.1:{grpc_port.group(1)}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                reply = stub.ListGameTypes(game_service_pb2.ListGameTypesRequest(), timeout=10)
            assert [t["name"] for t in types] == [t.name for t in reply.game_types]
            assert "<title>Parlour</title>" in requests.get(http_url.group(1) + "/", timeout=10).text
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    assert server.returncode == 0


def test_serve_takes_the_cluster_and_the_replica_acks_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``parlour serve`` reads PARLOUR_REDIS_CLUSTER and PARLOUR_REPLICA_ACKS; its flags win over them, and a
    bad value is said in one line, naming the variable."""
    from parlour.cli.main import build_parser
    from service.cli import _settings

    def settings(*flags: str) -> Settings:
        return _settings(build_parser().parse_args(["serve", *flags]))

    assert (settings().redis_cluster, settings().replica_acks) == ("", 0)
    monkeypatch.setenv("PARLOUR_REDIS_CLUSTER", "127.0.0.1:7000,127.0.0.1:7001")
    monkeypatch.setenv("PARLOUR_REPLICA_ACKS", "1")
    assert (settings().redis_cluster, settings().replica_acks) == ("127.0.0.1:7000,127.0.0.1:7001", 1)
    overridden = settings("--redis-cluster", "127.0.0.1:7002", "--replica-acks", "2")
    assert (overridden.redis_cluster, overridden.replica_acks) == ("127.0.0.1:7002", 2)
    monkeypatch.setenv("PARLOUR_REPLICA_ACKS", "many")
    with pytest.raises(SystemExit, match="PARLOUR_REPLICA_ACKS"):
        settings()
