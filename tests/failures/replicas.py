"""Helpers for tests with real ``parlour serve`` processes on one Redis (or one Redis Cluster)."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from tests.conftest import RedisTarget
from tests.tournaments.helpers import ADMIN_KEY

__all__ = ["free_port", "serve"]


def free_port() -> int:
    """A TCP port free now on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def serve(
    target: RedisTarget, prefix: str, data_dir: Path, *, replica_acks: int = 1, flags: Sequence[str] = ()
) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """A `parlour serve` process on the target (a cluster: with ``replica_acks``) and a free port, with
    ``flags`` added: (process, its ``host:port``). Killed on exit if it still runs. It serves in one process
    (``--workers 1``): a replica the tests kill is one process, and several replicas on a few cores stay
    cheap."""
    port = free_port()
    command = [sys.executable, "-m", "parlour.cli.main", "serve", "--host", "127.0.0.1", "--grpc-port", str(port)]
    command += ["--http-port", "0", "--data-dir", str(data_dir), "--key-prefix", prefix]
    if target.cluster_seeds:
        command += ["--redis-cluster", target.cluster_seeds, "--replica-acks", str(replica_acks)]
    else:
        command += ["--redis", target.url]
    command += ["--admin-key", ADMIN_KEY, "--log-level", "warning", "--workers", "1", *flags]
    data_dir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - a local directory, once
    with (data_dir / "server.log").open("wb") as log:  # the server's log lines, for a failed test's reader
        process = await asyncio.create_subprocess_exec(
            *command,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=60)).decode()
        assert re.search(rf"gRPC on 127\.0\.0\.1:{port}\b", line), f"the server did not start: {line!r}"
        yield process, f"127.0.0.1:{port}"
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
