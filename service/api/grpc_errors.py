"""The one place where errors become gRPC statuses (the table itself is ``service.app.errors.ERRORS``)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple, TypeVar

import grpc
import structlog
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from service.api.request_ids import trailing
from service.app.errors import SERVER_FAILED, ServiceError, from_failure

__all__ = ["REASON_KEY", "abort_with_error", "grpc_errors", "grpc_stream_errors", "grpc_writer_errors"]

REASON_KEY = "parlour-error-reason"
log = structlog.get_logger("parlour.grpc")
R = TypeVar("R")


class _Status(NamedTuple):
    """A grpc.Status: code, message, and trailing metadata carrying the rich details and the reason."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]


def _status(error: ServiceError) -> _Status:
    code = error.kind.grpc_code
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain="parlour"))
    rich = status_pb2.Status(code=code.value[0], message=error.message, details=[info])
    metadata = (("grpc-status-details-bin", rich.SerializeToString()), (REASON_KEY, error.reason), *trailing())
    return _Status(code, error.message, metadata)


async def abort_with_error(context: grpc.aio.ServicerContext[Any, Any], error: ServiceError) -> None:
    """End the call with ``error``'s status code, reason and sentence (raises, like ``context.abort``)."""
    log.info("request rejected", reason=error.reason)  # never the sentence: it may describe the actor's hand
    await context.abort_with_status(_status(error))  # type: ignore[arg-type]  # grpc-status's Status and grpc.aio's expected Status differ only in the stubs


_abort = abort_with_error


Handler = Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[R]]


def grpc_errors(handler: Handler[R]) -> Handler[R]:
    """Wrap a unary handler: a ServiceError becomes its status code, reason and sentence."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> R:
        try:
            return await handler(self, request, context)
        except ServiceError as error:
            await _abort(context, error)
            raise AssertionError("unreachable: abort raises") from error
        except Exception as failure:
            await _abort(context, _known(failure))
            raise AssertionError("unreachable: abort raises") from failure

    return wrapper


def _known(failure: Exception) -> ServiceError:
    """The table's error for a failure: the store away, or else ``server/internal`` (a bug: logged with its
    traceback; the client gets the table's sentence, never the exception's own text)."""
    error = from_failure(failure)
    if error is None:
        log.error("call failed", failure=type(failure).__name__, exc_info=failure)
        return ServiceError("server/internal", SERVER_FAILED)
    log.warning("store unavailable", failure=type(failure).__name__)
    return error


StreamHandler = Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[R]]
WritingHandler = Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[None]]


def grpc_stream_errors(handler: StreamHandler[R]) -> StreamHandler[R]:
    """Wrap a server-streaming handler the same way."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[R]:
        try:
            async for item in handler(self, request, context):
                yield item
        except ServiceError as error:
            await _abort(context, error)
        except Exception as failure:
            await _abort(context, _known(failure))

    return wrapper


def grpc_writer_errors(handler: WritingHandler) -> WritingHandler:
    """Wrap a server-streaming handler that writes its replies (``await context.write(reply)``) the same
    way: the mapping runs once around the whole stream, not once per reply."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        try:
            await handler(self, request, context)
        except ServiceError as error:
            await _abort(context, error)
        except Exception as failure:
            await _abort(context, _known(failure))

    return wrapper
