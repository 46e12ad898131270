"""Listening ports: a port another process holds is refused with one sentence, never shared.

gRPC's C core sets ``SO_REUSEPORT`` by default, so a second server on a taken port would start and split
the clients between two processes (each perhaps with its own embedded Redis). The servers here turn that
option off and report a port that cannot be bound as :class:`PortUnavailableError`.

The workers of one ``parlour serve --workers N`` share their ports on purpose, and only they: their parent
first checks that each port is free with a plain socket (:func:`reserve`; a taken port is refused here, in
the same sentence), then holds it bound with ``SO_REUSEPORT`` and starts the workers, whose listeners set
``SO_REUSEPORT`` too. The kernel spreads new connections over the listeners; another program (and another
``parlour serve``, whose own check binds without the option) cannot bind the port while the parent lives.
"""

from __future__ import annotations

import errno
import os
import socket
from dataclasses import dataclass, field

__all__ = ["PortUnavailableError", "Reservation", "reserve", "unavailable"]


class PortUnavailableError(Exception):
    """A server could not listen on its address; the message says which, why, and what to do."""


def unavailable(what: str, host: str, port: int, flag: str, cause: BaseException | None = None) -> PortUnavailableError:
    """The error for ``what`` (``"gRPC"``, ``"HTTP"``) failing to listen on ``host:port``, with the reason
    the operating system gives (probed with a plain socket when ``cause`` does not carry one)."""
    reason = _reason(cause) or _probe(host, port)
    advice = f"stop the process that holds it or choose another port with {flag}"
    if reason == "address already in use":
        return PortUnavailableError(f"the {what} port {port} on {host} is already in use; {advice}")
    detail = f": {reason}" if reason else ""
    return PortUnavailableError(f"cannot listen for {what} on {host}:{port}{detail}; {advice}")


def _reason(cause: BaseException | None) -> str:
    if isinstance(cause, OSError) and cause.errno is not None:
        return _text(cause.errno)
    return ""


def _probe(host: str, port: int) -> str:
    """Why binding ``host:port`` fails, from a plain socket's own attempt ("" when it does not fail)."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        return str(error.strerror or error).lower()
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                return _text(error.errno) if error.errno is not None else str(error)
    return ""


def _text(number: int) -> str:
    if number == errno.EADDRINUSE:
        return "address already in use"
    return os.strerror(number).lower()


@dataclass
class Reservation:
    """A port held for a server's workers: bound (not listening) with ``SO_REUSEPORT`` on every address of
    its host, so that listeners with ``SO_REUSEPORT`` of the same user can join it and nothing else can
    bind it. :meth:`close` gives it up."""

    port: int
    sockets: list[socket.socket] = field(default_factory=list)

    def close(self) -> None:
        """Unbind the port (the workers' listeners, if any, go on)."""
        for held in self.sockets:
            held.close()
        self.sockets.clear()


def reserve(what: str, host: str, port: int, flag: str) -> Reservation:
    """Check that ``host:port`` is free by binding it without ``SO_REUSEPORT`` (port 0: the port the
    kernel picks, the same one on every address of ``host``), then hold it with ``SO_REUSEPORT`` for the
    workers to listen on. A port that cannot be bound raises PortUnavailableError naming ``what`` and
    ``flag`` (``"gRPC"``, ``"--grpc-port"``), as a server that binds it itself does.

    Between the check and the hold the port is free for a moment; a program that binds it then makes the
    hold fail, which is refused the same way. The kernel's rules leave two ways in: a program of the same
    user that sets ``SO_REUSEPORT`` itself may join the port, and while no worker listens (all of them
    restarting at once) a socket with ``SO_REUSEADDR`` may bind it (the hold sets that option too, so that
    connections of a stopped server still in TIME_WAIT do not keep it from binding)."""
    try:
        addresses = _addresses(host, port)
    except OSError as error:
        raise unavailable(what, host, port, flag, error) from error
    chosen = port
    for family, address in addresses:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            _one_family(probe, family, addresses)
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as _probe: TIME_WAITs own no port
            try:
                probe.bind((address[0], chosen, *address[2:]))
            except OSError as error:
                raise unavailable(what, host, chosen, flag, error) from error
            chosen = int(probe.getsockname()[1])
    reservation = Reservation(chosen)
    for family, address in addresses:
        held = socket.socket(family, socket.SOCK_STREAM)
        reservation.sockets.append(held)
        _one_family(held, family, addresses)
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            held.bind((address[0], chosen, *address[2:]))
        except OSError as error:
            reservation.close()
            raise unavailable(what, host, chosen, flag, error) from error
    return reservation


def _addresses(host: str, port: int) -> list[tuple[int, tuple[object, ...]]]:
    """The (family, socket address) pairs a server listening on ``host:port`` binds, each once."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    unique: dict[tuple[int, object], tuple[int, tuple[object, ...]]] = {}
    for family, _, _, _, address in infos:
        unique.setdefault((family, address[0]), (family, tuple(address)))
    return list(unique.values())


def _one_family(sock: socket.socket, family: int, addresses: list[tuple[int, tuple[object, ...]]]) -> None:
    """An IPv6 socket beside IPv4 addresses of the same host binds IPv6 only (as asyncio's servers do)."""
    if family == socket.AF_INET6 and any(other == socket.AF_INET for other, _ in addresses):
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
