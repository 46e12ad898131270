"""Listening ports: a port another process holds is refused with one sentence, never shared.

gRPC's C core sets ``SO_REUSEPORT`` by default, so a second server on a taken port would start and split
the clients between two processes (each perhaps with its own embedded Redis). The servers here turn that
option off and report a port that cannot be bound as :class:`PortUnavailableError`.
"""

from __future__ import annotations

import errno
import os
import socket

__all__ = ["PortUnavailableError", "unavailable"]


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
