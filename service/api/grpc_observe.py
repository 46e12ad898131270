"""Request ids and open-stream counts for every gRPC call: :func:`observed` wraps a method's handler so that
each call gets a request id (bound into its logs, sent back in the trailing metadata) and each server
stream is counted as open in the metrics. The server wraps every handler it has with it, generated
servicers, health and reflection alike (see :mod:`service.api.grpc_wrapping`), without changing what they
do."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, TypeAlias

import grpc

from service import metrics
from service.api import request_ids
from service.api.grpc_metadata import invocation_metadata

__all__ = ["observed"]

Context = grpc.aio.ServicerContext[Any, Any]


@contextmanager
def _observed(context: Context, rpc: str, *, stream: bool) -> Iterator[None]:
    request_id = request_ids.choose(invocation_metadata(context))
    context.set_trailing_metadata(((request_ids.TRAILING_KEY, request_id),))
    with ExitStack() as stack:
        stack.enter_context(request_ids.bound(request_id))
        if stream:
            stack.enter_context(metrics.open_stream(rpc, "grpc"))
        yield


def _unary_reply(inner: Callable[..., Awaitable[Any]], rpc: str) -> Callable[..., Awaitable[Any]]:
    async def behavior(request: Any, context: Context) -> Any:
        request_id = request_ids.choose(invocation_metadata(context))
        context.set_trailing_metadata(((request_ids.TRAILING_KEY, request_id),))
        request_ids.bind(request_id)  # grpc.aio runs each call in a task of its own
        return await inner(request, context)

    return behavior


def _stream_reply(inner: Callable[..., Any], rpc: str) -> Callable[..., Any]:
    if not inspect.isasyncgenfunction(inner):  # a handler that writes with context.write() (health's Watch)

        async def writer(request: Any, context: Context) -> Any:
            with _observed(context, rpc, stream=True):
                return await inner(request, context)

        return writer

    async def behavior(request: Any, context: Context) -> AsyncIterator[Any]:
        with _observed(context, rpc, stream=True):
            async for reply in inner(request, context):
                yield reply

    return behavior


Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the type stubs


def observed(method: str, handler: Handler) -> Handler:
    """``handler`` of ``method`` (its full name), each call of it observed (see the module docstring)."""
    rpc = method.rsplit("/", 1)[-1]
    codec = {"request_deserializer": handler.request_deserializer, "response_serializer": handler.response_serializer}
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(_unary_reply(handler.unary_unary, rpc), **codec)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(_unary_reply(handler.stream_unary, rpc), **codec)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(_stream_reply(handler.unary_stream, rpc), **codec)
    assert handler.stream_stream is not None, "a method handler has one of the four behaviours"
    return grpc.stream_stream_rpc_method_handler(_stream_reply(handler.stream_stream, rpc), **codec)
