"""What every gRPC call passes before its handler runs: its bytes must be at most the server's request
limit (else RESOURCE_EXHAUSTED ``request/too_large`` naming the limit) and must decode (else
INVALID_ARGUMENT with a sentence, not UNKNOWN), and the client must pass the gate
(:class:`service.app.gate.Gate`: its API key, its quotas).

:class:`GateWrapper` wraps each method's handler when the server registers it: the request deserializer no
longer raises (it returns a :class:`_Refused` marker, too large or undecodable, that the wrapped behaviour
refuses with the error table's reason, the request id and a sentence), and the behaviour is run inside the
quotas of the client (its API key from ``x-parlour-api-key``, else its address: the peer's, or the one the
``x-forwarded-for`` metadata gives when the peer is a trusted proxy, see ``service.api.forwarded``).
gRPC's own receive limit is set somewhat above the request limit (see
:func:`service.api.grpc_server.build_grpc_server`), so that a request a little too large reaches this
check rather than being cut off by gRPC core with a bare status.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from service.api.forwarded import TrustedProxies, forwarded_values
from service.api.grpc_errors import abort_with_error
from service.api.grpc_metadata import invocation_metadata
from service.api.request_sizes import RequestSizes
from service.app.errors import ServiceError
from service.app.gate import Gate
from service.app.limits import Client

__all__ = ["GateWrapper", "peer_address"]

Context = grpc.aio.ServicerContext[Any, Any]


class _Refused(ABC):
    """A request refused before it was decoded (its marker stands in for the message)."""

    @abstractmethod
    def refusal(self) -> ServiceError:
        """The error to answer with."""


@dataclass(frozen=True)
class _Undecodable(_Refused):
    """A request whose bytes are not a message of the call's request type."""

    type_name: str
    error: str

    def refusal(self) -> ServiceError:
        """The error to answer with."""
        return ServiceError(
            "request/invalid",
            f"the request's bytes are not a valid {self.type_name} message ({self.error}); send a serialized "
            f"{self.type_name}",
        )


@dataclass(frozen=True)
class _TooLarge(_Refused):
    """A request of more bytes than the server takes."""

    size: int
    limit: int

    def refusal(self) -> ServiceError:
        """The error to answer with."""
        return ServiceError(
            "request/too_large", f"the request has {self.size} bytes; a request may be at most {self.limit} bytes"
        )


def peer_address(peer: str) -> str:
    """The address of a gRPC peer string ("ipv4:1.2.3.4:5678" -> "1.2.3.4", "ipv6:[::1]:5678" -> "::1")."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]") or rest
    return kind or "unknown"


#: Who is calling, from a call's context.
_ClientOf = Callable[[Context], Client]


def _client(context: Context, proxies: TrustedProxies) -> Client:
    metadata = invocation_metadata(context)
    key = next((v for k, v in metadata if k == "x-parlour-api-key"), "")
    address = proxies.client_address(peer_address(context.peer() or ""), forwarded_values(metadata))
    return Client(address, key if isinstance(key, str) else "")


def _safe(deserialize: Callable[[bytes], Any] | None, limit: int) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None
    owner = getattr(deserialize, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    type_name = getattr(descriptor, "full_name", "request")

    def run(data: bytes) -> Any:
        if len(data) > limit:
            return _TooLarge(len(data), limit)
        try:
            return deserialize(data)
        except Exception as error:  # any decoding failure (bad wire format, invalid UTF-8) is the client's
            return _Undecodable(type_name, str(error) or type(error).__name__)

    return run


async def _decoded(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for request in requests:
        if isinstance(request, _Refused):
            raise request.refusal()
        yield request


class GateWrapper:
    """Wraps every method's handler: requests over the method's size limit and undecodable ones refused,
    quotas applied (see the module docstring). A :data:`~service.api.grpc_wrapping.HandlerWrapper`."""

    def __init__(self, gate: Gate, sizes: RequestSizes, proxies: TrustedProxies | None = None) -> None:
        """Requests over their method's limit in ``sizes`` are refused; a client is counted by its peer's
        address, or by ``x-forwarded-for`` when the peer is one of ``proxies``."""
        self._limits = gate
        self._sizes = sizes
        trusted = proxies or TrustedProxies()
        self._client_of: _ClientOf = lambda context: _client(context, trusted)

    def __call__(self, method: str, handler: Any) -> Any:
        """``handler`` of ``method`` (its full name, ``/package.Service/Method``), wrapped."""
        call = method.lstrip("/").rpartition(".")[2].replace("/", ".")
        return _wrap(handler, call, self._limits, self._client_of, self._sizes.of(method))


def _wrap(handler: Any, call: str, limits: Gate, client: _ClientOf, max_request_bytes: int) -> Any:
    deserializer = _safe(handler.request_deserializer, max_request_bytes)
    if handler.unary_unary is not None:
        return handler._replace(
            request_deserializer=deserializer, unary_unary=_unary(handler.unary_unary, call, limits, client)
        )
    if handler.unary_stream is not None:
        behaviour = _streaming(handler.unary_stream, call, limits, client, streamed_requests=False)
        return handler._replace(request_deserializer=deserializer, unary_stream=behaviour)
    if handler.stream_stream is not None:
        behaviour = _streaming(handler.stream_stream, call, limits, client, streamed_requests=True)
        return handler._replace(request_deserializer=deserializer, stream_stream=behaviour)
    return handler  # client streaming: no such call in this API


def _unary(inner: Any, call: str, limits: Gate, client: _ClientOf) -> Any:
    async def behaviour(request: Any, context: Context) -> Any:
        try:
            if isinstance(request, _Refused):
                raise request.refusal()
            await limits.admit(call, client(context))  # a unary call holds nothing while it runs
            return await inner(request, context)
        except ServiceError as error:
            await abort_with_error(context, error)
            raise AssertionError("unreachable: abort raises") from error

    return behaviour


def _streaming(inner: Any, call: str, limits: Gate, client: _ClientOf, *, streamed_requests: bool) -> Any:
    if not inspect.isasyncgenfunction(inner):  # a handler that writes with context.write() (health's Watch)

        async def writer(request: Any, context: Context) -> Any:
            try:
                if isinstance(request, _Refused):
                    raise request.refusal()
                async with limits.enter(call, client(context)):
                    return await inner(_decoded(request) if streamed_requests else request, context)
            except ServiceError as error:
                await abort_with_error(context, error)

        return writer

    async def behaviour(request: Any, context: Context) -> AsyncIterator[Any]:
        try:
            if isinstance(request, _Refused):
                raise request.refusal()
            async with limits.enter(call, client(context)):
                async for reply in inner(_decoded(request) if streamed_requests else request, context):
                    yield reply
        except ServiceError as error:
            await abort_with_error(context, error)

    return behaviour
