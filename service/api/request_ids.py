"""Request ids: every gRPC call and HTTP request gets one, bound into its log lines (``request_id``) and
sent back to the client (gRPC trailing metadata ``parlour-request-id``; HTTP header ``X-Request-Id``), so
a user's report can be matched with the server's log. A client (or a load balancer) may choose the id by
sending ``x-request-id``; one that is not 1 to 64 letters, digits, ``-``, ``_`` or ``.`` is replaced."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Any

import structlog

__all__ = ["INCOMING_KEY", "TRAILING_KEY", "bind", "bound", "choose", "trailing"]

#: The metadata key (gRPC) and lower-case header name (HTTP) a client may send its own id in.
INCOMING_KEY = "x-request-id"
#: The trailing metadata key the id is sent back in over gRPC.
TRAILING_KEY = "parlour-request-id"

_CURRENT: ContextVar[str | None] = ContextVar("parlour_request_id", default=None)
_VALID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def choose(metadata: Iterable[tuple[str, Any]]) -> str:
    """The id the client sent in ``x-request-id`` when it is valid, otherwise a new random one."""
    for key, value in metadata:
        if key.lower() == INCOMING_KEY and isinstance(value, str) and _VALID.fullmatch(value):
            return value
    return secrets.token_hex(8)


@contextmanager
def bound(request_id: str) -> Iterator[None]:
    """Within the block, log lines carry ``request_id`` and :func:`trailing` returns it."""
    token = _CURRENT.set(request_id)
    tokens = structlog.contextvars.bind_contextvars(request_id=request_id)
    try:
        yield
    finally:
        # A stream's generator closed after its call's task (at a server's stop, by the event loop's
        # finalizer) runs this in another context, where the tokens are not valid: the call's own context
        # has ended with its task, and there is nothing to reset.
        with suppress(ValueError):
            structlog.contextvars.reset_contextvars(**tokens)
            _CURRENT.reset(token)


def bind(request_id: str) -> None:
    """As :func:`bound`, for the rest of the current task: for a call that runs in a task of its own (a
    unary gRPC call), whose context ends with it, so nothing needs resetting."""
    _CURRENT.set(request_id)
    structlog.contextvars.bind_contextvars(request_id=request_id)


def trailing() -> tuple[tuple[str, str], ...]:
    """The trailing metadata entry of the current request's id (none outside a request)."""
    current = _CURRENT.get()
    return ((TRAILING_KEY, current),) if current else ()
