"""A request id is bound for a call's log lines, and a stream closed after its call's task ended (at a
server's stop, the event loop's finalizer closes its generator in another context) closes quietly."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator

import structlog

from service.api.request_ids import TRAILING_KEY, bound, trailing


async def test_a_bound_id_is_seen_inside_the_block_and_gone_after_it() -> None:
    with bound("req-1"):
        assert structlog.contextvars.get_contextvars()["request_id"] == "req-1"
        assert trailing() == ((TRAILING_KEY, "req-1"),)
    assert "request_id" not in structlog.contextvars.get_contextvars()


async def test_a_stream_closed_from_another_context_ends_without_an_error() -> None:
    async def stream() -> AsyncIterator[int]:
        with bound("req-2"):
            yield 1
            yield 2

    replies = stream()
    assert await anext(replies) == 1
    closing = asyncio.get_running_loop().create_task(replies.aclose(), context=contextvars.Context())
    await closing  # raised ValueError ("created in a different Context") before
