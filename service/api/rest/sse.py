"""Server streams as Server-Sent Events.

Each reply of the stream is one SSE event: ``data:`` is the reply in canonical JSON on one line; for a
stream listed in :data:`RESUMABLE`, ``id:`` is the reply's version, and a request with a ``Last-Event-ID``
header resumes right after it (the header wins over the query parameter), so a client that reconnects
misses nothing and sees nothing twice. When the stream ends (a finished game's last event was sent) the
server sends ``event: end`` and closes; a failure after the response has started is sent as
``event: failure`` with an ErrorDetail and closes. A comment line is sent while nothing happens, so
proxies keep the connection open and a closed connection is noticed.

An error found before the first reply (unknown game, bad token) is an ordinary HTTP error response: the
server waits up to ``first_reply_grace`` seconds for the first reply or error before it commits to
``200 text/event-stream``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from google.protobuf.message import Message

from service.api.rest.calls import CallAbortedError, HttpError, encode_json, error_body
from service.app.errors import ServiceError

__all__ = ["RESUMABLE", "FrameCache", "Resume", "resume_request", "stream_events"]


@dataclass(frozen=True)
class Resume:
    """How a stream resumes: the request field taking the first version, and the path to a reply's
    version (its SSE id)."""

    from_field: str
    version_path: tuple[str, ...]


#: Streams whose replies carry a version, by full rpc name.
RESUMABLE: dict[str, Resume] = {
    "parlour.v1.GameService.WatchGame": Resume("from_version", ("version",)),
    "parlour.v1.TournamentService.WatchTournament": Resume("from_version", ("event", "version")),
}


def resume_request(request: Message, resume: Resume, last_event_id: str | None) -> None:
    """Start ``request`` right after ``Last-Event-ID`` when the header is given. Raises ServiceError
    ``request/invalid`` when the header is not a version."""
    if last_event_id is None:
        return
    text = last_event_id.strip()
    if not text.isdigit() or len(text) > 18:
        raise ServiceError("request/invalid", f"Last-Event-ID must be an event version, not {text[:40]!r}")
    setattr(request, resume.from_field, int(text) + 1)


def _version(reply: Message, path: tuple[str, ...]) -> int:
    value: Any = reply
    for name in path:
        value = getattr(value, name)
    return int(value)


def _frame(reply: Message, resume: Resume | None) -> bytes:
    head = f"id: {_version(reply, resume.version_path)}\n" if resume else ""
    return f"{head}data: {encode_json(reply)}\n\n".encode()


class FrameCache:
    """SSE frames of recent replies, by the reply object's identity. The application hands the same reply
    object to every watcher of one audience (service.app.fanout), so its JSON is encoded once, not once per
    watcher. Each entry holds its reply, so an identity is never reused while it is cached."""

    def __init__(self, capacity: int = 4096) -> None:
        self._capacity = capacity
        self._frames: OrderedDict[int, tuple[Message, bytes]] = OrderedDict()

    def frame(self, reply: Message, resume: Resume | None) -> bytes:
        """The SSE frame of ``reply`` (see the module doc)."""
        hit = self._frames.get(id(reply))
        if hit is not None and hit[0] is reply:
            return hit[1]
        frame = _frame(reply, resume)
        self._frames[id(reply)] = (reply, frame)
        if len(self._frames) > self._capacity:
            self._frames.popitem(last=False)
        return frame


async def stream_events(
    request: web.Request,
    replies: AsyncIterator[Message],
    resume: Resume | None,
    *,
    heartbeat: float,
    first_reply_grace: float,
    on_error: Callable[[HttpError], Awaitable[web.StreamResponse]],
    frames: FrameCache | None = None,
) -> web.StreamResponse:
    """Send ``replies`` as an SSE response (see the module doc); returns the response, or ``on_error``'s
    for an error before the stream started. With ``frames``, replies shared between streams are encoded
    once."""
    pending: asyncio.Future[Message] = asyncio.ensure_future(anext(replies))
    response: web.StreamResponse | None = None
    try:
        await asyncio.wait({pending}, timeout=first_reply_grace)
        early = pending.exception() if pending.done() else None
        if isinstance(early, CallAbortedError):
            return await on_error(early.error)
        if early is not None and not isinstance(early, StopAsyncIteration):
            raise early
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        )
        await response.prepare(request)
        await response.write(b"retry: 2000\n\n")
        while True:
            done, _ = await asyncio.wait({pending}, timeout=heartbeat)
            if not done:
                await response.write(b": keep-alive\n\n")
                continue
            try:
                reply = pending.result()
            except StopAsyncIteration:
                await response.write(b"event: end\ndata: {}\n\n")
                break
            await response.write(frames.frame(reply, resume) if frames is not None else _frame(reply, resume))
            pending = asyncio.ensure_future(anext(replies))
    except CallAbortedError as aborted:
        if response is not None:
            await response.write(f"event: failure\ndata: {error_body(aborted.error)}\n\n".encode())
    except ConnectionResetError:
        if response is None:
            raise
        # the client went away: nothing more to send
    finally:
        pending.cancel()
        await asyncio.wait({pending})
        with contextlib.suppress(Exception):
            await replies.aclose()  # type: ignore[attr-defined]  # async generators have aclose
    assert response is not None  # prepared, unless an early error was answered above
    return response
