"""`parlour serve --workers 2`: both workers serve one game (each command on the other worker) and any
worker's /metrics shows the whole server; a taken port is refused in one sentence, whoever holds it; SIGTERM
stops the parent and every worker within the grace period; a parent killed with SIGKILL leaves no worker and
no Redis behind, and its ports free."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from itertools import pairwise
from pathlib import Path

import aiohttp
import grpc
import pytest

from parlour.v1 import game_pb2, game_service_pb2
from service.workers import STOP_TIMEOUT_S, backoff_seconds
from tests.e2e.test_metrics import scrape, value
from tests.workers.helpers import (
    SERVE,
    Connection,
    Server,
    Store,
    connections_on_every_worker,
    seated_game,
    serve_workers,
)


def _auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


async def _move(connection: Connection, game_id: str, tokens: list[str]) -> int | None:
    """The first legal command of a seat that must act, over ``connection``; its version (None: over)."""
    view = await connection.view(game_id)
    if view.status == game_pb2.GAME_STATUS_FINISHED:
        return None
    seat = view.pending_seats[0]
    own = await connection.view(game_id, seat, tokens[seat])
    request = game_service_pb2.SubmitCommandRequest(
        game_id=game_id,
        seat=seat,
        command=own.legal_commands[0],
        expected_version=own.version,
        command_id=f"{game_id}-{own.version}",
    )
    reply = await connection.games.SubmitCommand(request, metadata=_auth(tokens[seat]))
    assert not reply.duplicate
    return int(reply.version)


async def test_both_workers_serve_one_game_and_any_worker_counts_them_all(store: Store, tmp_path: Path) -> None:
    async with serve_workers(tmp_path, store) as server:
        on = await connections_on_every_worker(server, 2)
        connections = list(on.values())
        game = await seated_game(connections[0])
        played = 0
        while await _move(connections[played % 2], game.game_id, game.tokens) is not None:
            played += 1
        applied = [line for line in server.logged("command applied") if line["game_id"] == game.game_id]
        assert len(applied) == played > 20
        assert {line["pid"] for line in applied} == set(on), "each worker applied every other command"
        # Whichever worker answers a scrape (each a new connection), it counts the commands of both.
        for _ in range(6):
            samples = await scrape(f"http://127.0.0.1:{server.http_port}/metrics")
            assert value(samples, "parlour_commands_total", game="oldmen", result="applied") == played
            assert value(samples, "parlour_command_seconds_count", game="oldmen") == played
            watchers = {dict(labels)["pid"] for name, labels in samples if name == "parlour_watchers"}
            assert watchers == {str(pid) for pid in on}, "per-process gauges: one series per live worker"
        url = f"http://127.0.0.1:{server.http_port}/v1/games/{game.game_id}"
        async with aiohttp.ClientSession() as session, session.get(url) as reply:  # REST too, from the same log
            assert (await reply.json())["game"]["status"] == "GAME_STATUS_FINISHED"
        for connection in connections:
            await connection.close()


async def _second(tmp_path: Path, *flags: str) -> tuple[int | None, str, str]:
    """Run another server that must refuse to start; its exit code, stdout and stderr."""
    command = [*SERVE, "--data-dir", str(tmp_path / "second"), *flags]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:  # it serves: stop it, the test fails below
            process.kill()
            await process.wait()
    return process.returncode, out.decode(), err.decode()


def _refused(code: int | None, out: str, err: str, sentence: str) -> None:
    assert code == 1 and "gRPC on" not in out, (out, err)
    assert f"parlour serve: cannot start: {sentence}" in err, err
    assert "Traceback" not in err and "worker started" not in err, err


async def _serving(server: Server) -> bool:
    connection = Connection(server.target)
    try:
        return (await connection.view("no-such-game")) is not None
    except grpc.aio.AioRpcError as error:
        return error.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await connection.close()


async def test_a_taken_port_is_refused_in_one_sentence_whoever_holds_it(tmp_path: Path) -> None:
    async with serve_workers(tmp_path / "first", Store("own")) as server:
        grpc_port, http_port = str(server.grpc_port), str(server.http_port)
        taken = f"the gRPC port {grpc_port} on 127.0.0.1 is already in use; stop the process that holds it or "
        for workers in ("2", "1"):  # workers of another server, or a single one, never join these
            code, out, err = await _second(tmp_path, "--workers", workers, "--grpc-port", grpc_port, "--http-port", "0")
            _refused(code, out, err, taken + "choose another port with --grpc-port")
            code, out, err = await _second(tmp_path, "--workers", workers, "--grpc-port", "0", "--http-port", http_port)
            _refused(code, out, err, f"the HTTP port {http_port} on 127.0.0.1 is already in use")
            assert "--http-port" in err
        assert await _serving(server)
    with socket.socket() as other:  # another program's listener
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = str(other.getsockname()[1])
        code, out, err = await _second(tmp_path, "--workers", "2", "--grpc-port", port, "--http-port", "0")
        _refused(code, out, err, f"the gRPC port {port} on 127.0.0.1 is already in use")
        code, out, err = await _second(tmp_path, "--workers", "2", "--grpc-port", "0", "--http-port", port)
        _refused(code, out, err, f"the HTTP port {port} on 127.0.0.1 is already in use")
        code, out, err = await _second(tmp_path, "--workers", "2", "--grpc-port", "0", "--metrics-port", port)
        _refused(code, out, err, f"the HTTP port {port} on 127.0.0.1 is already in use")
        assert "--metrics-port" in err


async def test_one_port_for_two_flags_is_refused(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    code, out, err = await _second(tmp_path, "--workers", "2", "--grpc-port", port, "--http-port", port)
    _refused(code, out, err, f"the HTTP port {port} on 127.0.0.1 is already in use")


def _redis_children(pid: int) -> set[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return {int(c) for c in children if b"redis-server" in Path(f"/proc/{c}/cmdline").read_bytes()}


async def _ended(pid: int, seconds: float) -> None:
    """Wait until process ``pid`` (not necessarily a child) has ended (at most ``seconds``)."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    ended = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(descriptor, ended.set)
    try:
        await asyncio.wait_for(ended.wait(), seconds)
    finally:
        loop.remove_reader(descriptor)
        os.close(descriptor)


async def test_sigterm_stops_the_parent_and_every_worker_within_the_grace_period(tmp_path: Path) -> None:
    async with serve_workers(tmp_path, Store("own"), workers=3) as server:
        on = await connections_on_every_worker(server, 3)
        game = await seated_game(next(iter(on.values())))
        streams = [asyncio.create_task(c.versions(game.game_id)) for c in on.values()]  # open on each worker
        await asyncio.sleep(0.5)
        children = server.workers | _redis_children(server.process.pid)
        assert len(children) == 4
        loop = asyncio.get_running_loop()
        began = loop.time()
        server.process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(server.process.wait(), STOP_TIMEOUT_S + 5)
        took = loop.time() - began
        assert code == 0
        assert took < STOP_TIMEOUT_S, f"the workers stopped in {took:.1f} s, within their grace period"
        for pid in children:
            await _ended(pid, 1)
        for stream in streams:  # each ended, as a single server's do when it stops
            with pytest.raises(grpc.aio.AioRpcError):
                await asyncio.wait_for(stream, 10)
        for connection in on.values():
            await connection.close()
        assert not list(server.logged("worker killed: it did not stop in time"))
        stopped = {line["pid"] for line in server.logged("server stopped")}
        assert stopped == set(on), "every worker stopped as a server does"


async def test_a_killed_parent_leaves_no_worker_nor_redis_and_frees_its_ports(tmp_path: Path) -> None:
    async with serve_workers(tmp_path, Store("own")) as server:
        children = server.workers | _redis_children(server.process.pid)
        assert len(children) == 3
        server.process.kill()
        await server.process.wait()
        for pid in children:
            await _ended(pid, 10)
        for port in (server.grpc_port, server.http_port):
            with socket.socket() as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(("127.0.0.1", port))


def test_a_worker_that_keeps_dying_is_started_again_ever_later_up_to_half_a_minute() -> None:
    assert backoff_seconds(0) == 0
    assert [backoff_seconds(n) for n in range(1, 8)] == [0.5, 1, 2, 4, 8, 16, 30]
    assert backoff_seconds(10_000) == 30


def test_workers_default_to_the_cores_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.workers import default_workers

    if sys.platform.startswith("linux"):
        assert default_workers() <= len(os.sched_getaffinity(0))
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1, 2, 3, 4, 5})
    monkeypatch.setattr("service.workers._cgroup_cpus", lambda: None)
    assert default_workers() == 6
    monkeypatch.setattr("service.workers._cgroup_cpus", lambda: 2)  # a container's --cpus 1.5
    assert default_workers() == 2


#: Runs the supervisor with a stand-in worker (``FAKE``, given the file it notes its starts in), on ports
#: of its own and a Redis URL no stand-in uses.
SUPERVISOR = """
import sys
import service.workers as workers
from service.config import Settings
from service.logs import configure_logging

configure_logging("info", json=False)

workers.WORKER_COMMAND = (sys.executable, "-c", sys.argv[1], sys.argv[2])
settings = Settings(grpc_host="127.0.0.1", grpc_port=0, http_host="127.0.0.1", http_port=0, redis_url="redis://x")
try:
    workers.supervise(settings, 2, lambda *_: print("serving", flush=True))
except workers.WorkerStartError as error:
    sys.exit(f"cannot start: {error}")
"""
#: Notes its start, says it serves, and dies a moment later (or at once, without serving, for "never").
CRASHING = """
import os, sys, time
with open(sys.argv[1], "a") as starts:
    starts.write(f"{sys.argv[3]} {time.monotonic()}\\n")
if open(sys.argv[1]).read().startswith("never"):
    sys.exit(3)
os.write(1, b"ready\\n")
time.sleep(0.2)
sys.exit(1)
"""


async def _supervise_crashing(starts: Path, seconds: float) -> tuple[int | None, str, str]:
    """The supervisor over two crashing stand-ins for ``seconds``, then SIGTERM; its code, stdout, stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SUPERVISOR,
        CRASHING,
        str(starts),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await asyncio.sleep(seconds)
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
    out, err = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode, out.decode(), err.decode()


async def test_a_worker_that_keeps_dying_is_started_again_after_ever_longer_pauses(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    code, out, err = await _supervise_crashing(starts, 6)
    assert code == 0 and out == "serving\n", (out, err)
    by_slot: dict[str, list[float]] = {}
    for line in starts.read_text().splitlines():
        slot, at = line.split()
        by_slot.setdefault(slot, []).append(float(at))
    assert set(by_slot) == {"0", "1"}
    for times in by_slot.values():
        pauses = [later - earlier for earlier, later in pairwise(times)]
        assert 3 <= len(times) <= 5, times  # 0.5 s, 1 s, 2 s... after each death, not a spin
        assert all(b > a for a, b in pairwise(pauses)), pauses
    assert "worker exited; starting it again" in err


async def test_a_worker_that_cannot_start_stops_the_server_with_a_sentence(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    starts.write_text("never\n")
    code, out, err = await _supervise_crashing(starts, 5)
    assert code == 1 and "serving" not in out, (out, err)
    assert "cannot start: worker " in err and "exited with code 3 before it served" in err, err


def _parsed(*argv: str) -> int | None:
    from parlour.cli.main import build_parser
    from service.cli import _settings

    return _settings(build_parser().parse_args(["serve", *argv])).workers


def test_the_workers_come_from_the_flag_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARLOUR_WORKERS", raising=False)
    assert _parsed() is None  # one per core
    assert _parsed("--workers", "3") == 3
    monkeypatch.setenv("PARLOUR_WORKERS", "4")
    assert _parsed() == 4
    assert _parsed("--workers", "1") == 1
    with pytest.raises(SystemExit, match="--workers must be 1 or more, not 0"):
        _parsed("--workers", "0")
    monkeypatch.setenv("PARLOUR_WORKERS", "many")
    with pytest.raises(SystemExit, match="PARLOUR_WORKERS must be a whole number"):
        _parsed()


def test_a_new_parent_removes_the_metrics_directories_of_killed_ones() -> None:
    import tempfile

    from service.workers import _sweep_metrics_dirs

    left = Path(tempfile.mkdtemp(prefix=f"parlour-metrics-{_dead_pid()}-"))  # its parent was killed
    (left / "counter_123.db").write_bytes(b"")
    running = Path(tempfile.mkdtemp(prefix=f"parlour-metrics-{os.getpid()}-"))  # its parent runs
    try:
        _sweep_metrics_dirs()
        assert not left.exists()
        assert running.exists()
    finally:
        running.rmdir()


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    import subprocess

    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid
