"""Calling a gRPC servicer's method from HTTP, and turning its outcome into an HTTP status and body.

The REST gateway runs the very handlers the gRPC server runs (same decoding of fields, same use case,
same error wrapper), through :class:`HttpCallContext`, a stand-in for ``grpc.aio.ServicerContext`` that
carries the ``Authorization`` header as metadata and turns an abort into :class:`CallAbortedError`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from parlour.v1 import errors_pb2
from service.api.grpc_errors import REASON_KEY
from service.app.errors import ERRORS, SERVER_FAILED, ServiceError

__all__ = [
    "CallAbortedError",
    "HttpCallContext",
    "HttpError",
    "call_stream",
    "call_unary",
    "encode_json",
    "error_body",
]


@dataclass(frozen=True)
class HttpError:
    """A failed call as HTTP sends it: a status and an ErrorDetail (reason and sentence)."""

    status: int
    reason: str
    message: str

    @classmethod
    def of(cls, error: ServiceError) -> HttpError:
        """The HTTP form of a service error, by the one error table."""
        return cls(error.kind.http_status, error.reason, error.message)


def error_body(error: HttpError) -> str:
    """The JSON body of an error response: ``parlour.v1.ErrorDetail`` in the canonical JSON mapping."""
    return encode_json(errors_pb2.ErrorDetail(reason=error.reason, message=error.message))


def encode_json(message: Message) -> str:
    """A message in Protobuf's canonical JSON mapping, on one line, fields with default values included
    (so a browser finds ``seat: 0`` rather than nothing)."""
    data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


class CallAbortedError(Exception):
    """A handler aborted the call; ``error`` is what to answer over HTTP."""

    def __init__(self, error: HttpError) -> None:
        super().__init__(error.message)
        self.error = error


def _aborted(code: grpc.StatusCode, details: str, metadata: Sequence[tuple[str, Any]]) -> CallAbortedError:
    """An abort as HTTP sends it, by the one error table (the reason's status). An abort that carries no
    reason of the table (no handler does that: they raise ServiceError) is the server's own failure."""
    reason = next((str(v) for k, v in metadata if k == REASON_KEY), "")
    if reason not in ERRORS:
        reason, details = "server/internal", SERVER_FAILED
    return CallAbortedError(HttpError.of(ServiceError(reason, details)))


class HttpCallContext:
    """What a servicer method needs of ``grpc.aio.ServicerContext``, for a call that came over HTTP.

    The invocation metadata is the ``authorization`` header (when sent); ``abort`` and
    ``abort_with_status`` raise :class:`CallAbortedError`. Other context features are not offered.
    """

    def __init__(self, authorization: str | None, extra: Sequence[tuple[str, str]] = ()) -> None:
        """``extra``: further metadata entries from headers (the admin and bot keys)."""
        head: tuple[tuple[str, str], ...] = (("authorization", authorization),) if authorization else ()
        self._metadata = head + tuple(extra)
        self._sink: Callable[[Message], Awaitable[None]] | None = None

    async def write(self, message: Message) -> None:
        """Send one reply of a stream whose handler writes its replies (see :func:`call_stream`)."""
        if self._sink is None:
            raise RuntimeError("write() is for streaming calls started with call_stream")
        await self._sink(message)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The request metadata: the ``authorization`` header, if any, and the ``extra`` entries."""
        return self._metadata

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Sequence[Any] = ()) -> None:
        """End the call with ``code``; raises CallAbortedError."""
        raise _aborted(code, details, trailing_metadata)

    async def abort_with_status(self, status: Any) -> None:
        """End the call with a ``grpc.Status``; raises CallAbortedError."""
        raise _aborted(status.code, status.details, status.trailing_metadata or ())


async def call_unary(servicer: object, name: str, request: Message, context: HttpCallContext) -> Message:
    """Run the unary method ``name`` of ``servicer``. Raises CallAbortedError when the handler aborts."""
    reply: Message = await getattr(servicer, name)(request, context)
    return reply


def call_stream(servicer: object, name: str, request: Message, context: HttpCallContext) -> AsyncIterator[Message]:
    """Start the server-streaming method ``name``; iterating raises CallAbortedError when the handler aborts.
    A handler that writes its replies (``await context.write(reply)``, grpc.aio's other streaming form) runs
    in a task of its own; each write waits until the reply is taken, so a slow reader slows the handler
    down as over gRPC."""
    method = getattr(servicer, name)
    if inspect.isasyncgenfunction(method):
        stream: AsyncIterator[Message] = method(request, context)
        return stream
    return _written(method(request, context), context)


async def _written(handler: Awaitable[None], context: HttpCallContext) -> AsyncIterator[Message]:
    taken: asyncio.Queue[Message] = asyncio.Queue(maxsize=1)
    context._sink = taken.put
    task = asyncio.ensure_future(handler)
    take: asyncio.Future[Message] | None = None
    try:
        while not task.done():
            take = asyncio.ensure_future(taken.get())
            await asyncio.wait({take, task}, return_when=asyncio.FIRST_COMPLETED)
            if take.done():
                yield take.result()
        while not taken.empty():  # the handler ended first: what it wrote last is still queued
            yield taken.get_nowait()
        task.result()  # the handler's failure, if any
    finally:
        for pending in (take, task):
            if pending is not None:
                pending.cancel()
        await asyncio.gather(*(f for f in (take, task) if f is not None), return_exceptions=True)
