"""A server running in its own thread and event loop (so synchronous tools such as schemathesis can call
it too), and a small client that speaks only JSON and Server-Sent Events over HTTP."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from service.bootstrap import App, build_app
from service.config import Settings


@dataclass
class RunningServer:
    """Where a test server listens."""

    http_url: str
    grpc_target: str
    app: App


@contextmanager
def server_in_thread(data_dir: Path, **settings: Any) -> Iterator[RunningServer]:
    """Build and start a server on free ports in a background thread; stop it on exit."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    holder: dict[str, Any] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            app = build_app(
                Settings(
                    grpc_host="127.0.0.1",
                    grpc_port=0,
                    http_host="127.0.0.1",
                    http_port=0,
                    data_dir=data_dir,
                    key_prefix=f"test-{uuid.uuid4().hex[:8]}",
                    **settings,
                )
            )
            loop.run_until_complete(app.start())
            holder["app"] = app
        except BaseException as error:  # reported to the test thread below
            holder["error"] = error
        finally:
            started.set()
        if "app" in holder:
            loop.run_forever()

    thread = threading.Thread(target=run, name="parlour-test-server", daemon=True)
    thread.start()
    started.wait(60)
    if "error" in holder:
        raise holder["error"]
    app: App = holder["app"]
    try:
        yield RunningServer(f"http://127.0.0.1:{app.http_port}", f"127.0.0.1:{app.grpc_port}", app)
    finally:
        asyncio.run_coroutine_threadsafe(app.stop(0.5), loop).result(30)
        asyncio.run_coroutine_threadsafe(_cancel_leftovers(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


async def _cancel_leftovers() -> None:
    """Cancel what the server left running (stream readers of games nobody watches any more)."""
    current = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class HttpError(Exception):
    """A non-2xx reply: its status and JSON body."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {body}")
        self.status = status
        self.body = body


class JsonClient:
    """Calls the REST routes with JSON bodies and bearer tokens; nothing but HTTP."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base

    async def call(
        self, verb: str, path: str, body: Any = None, *, token: str | None = None, **query: Any
    ) -> dict[str, Any]:
        """The JSON reply; raises HttpError for a non-2xx status."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        params = {k: str(v) for k, v in query.items()}
        async with self.session.request(verb, self.base + path, json=body, headers=headers, params=params) as reply:
            data = await reply.json(content_type=None)
            if reply.status >= 300:
                raise HttpError(reply.status, data)
            assert reply.content_type == "application/json"
            return data  # type: ignore[no-any-return]  # decoded JSON is Any


@dataclass
class SseMessage:
    """One Server-Sent Event."""

    event: str
    data: str
    id: str | None


async def sse_messages(reply: aiohttp.ClientResponse) -> AsyncIterator[SseMessage]:
    """The events of an open ``text/event-stream`` reply, in order (comments and ``retry:`` skipped)."""
    event, data, ident = "message", [], None
    async for raw in reply.content:
        line = raw.decode().rstrip("\r\n")
        if not line:
            if data:
                yield SseMessage(event, "\n".join(data), ident)
            event, data, ident = "message", [], None
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "id":
                ident = value
