"""Wrapping every method handler of a gRPC server once, when it is registered, instead of on every call.

grpc.aio runs a server's interceptors as a chain of coroutines on every call (each asks the next for the
method's handler), however little they do. Parlour's per-call layers (request ids, the gate, shared
replies) only ever wrap a method's handler, the same way for every call of that method, so they are
:data:`HandlerWrapper` functions applied when the handler is registered: :class:`WrappingRegistry` stands in
for the server in the generated ``add_*Servicer_to_server`` functions (and in health and reflection), and
hands the server each handler already wrapped. A call then costs the server a lookup, as with no
interceptor at all.

Every handler is served as a *generic* handler, those the generated code also offers as "registered
methods" included: grpc.aio's server loop waits on one pending request per registered method at once,
re-armed on every call (``asyncio.wait`` over some thirty tasks per RPC for Parlour's services), while
all generic handlers share one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias

import grpc

__all__ = ["HandlerRegistry", "HandlerWrapper", "WrappingRegistry"]

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the type stubs
#: Given a method's full name (``/package.Service/Method``) and its handler, the handler to serve it with.
HandlerWrapper = Callable[[str, Handler], Handler]


class HandlerRegistry(Protocol):
    """What the generated ``add_*Servicer_to_server`` functions call on a server."""

    def add_generic_rpc_handlers(self, generic_rpc_handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        """Serve the methods these generic handlers know."""

    def add_registered_method_handlers(self, service_name: str, method_handlers: Mapping[str, Handler]) -> None:
        """Serve ``service_name``'s methods (by short name) with these handlers."""


class _WrappedGeneric(grpc.GenericRpcHandler):
    """A generic handler whose handlers come out wrapped, each method's wrapped once."""

    def __init__(self, inner: grpc.GenericRpcHandler, wrap: Callable[[str, Handler], Handler]) -> None:
        self._inner = inner
        self._wrap = wrap
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        """The wrapped handler of the call's method, or None when the inner handler has none."""
        handler = self._inner.service(handler_call_details)
        if handler is None:
            return None
        method: str = handler_call_details.method
        known = self._wrapped.get(method)
        if known is None or known[0] is not handler:
            known = self._wrapped[method] = (handler, self._wrap(method, handler))
        return known[1]


class WrappingRegistry:
    """Registers handlers on ``server`` after passing them through ``wrappers``; the first wrapper is the
    outermost (it sees the call first), as the first interceptor of a server would."""

    def __init__(self, server: HandlerRegistry, wrappers: Sequence[HandlerWrapper]) -> None:
        self._server = server
        self._wrappers = tuple(reversed(wrappers))

    def wrap(self, method: str, handler: Handler) -> Handler:
        """``handler`` of ``method`` (its full name) passed through every wrapper."""
        for wrapper in self._wrappers:
            handler = wrapper(method, handler)
        return handler

    def add_generic_rpc_handlers(self, generic_rpc_handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        """Serve these generic handlers' methods, wrapped."""
        self._server.add_generic_rpc_handlers([_WrappedGeneric(h, self.wrap) for h in generic_rpc_handlers])

    def add_registered_method_handlers(self, service_name: str, method_handlers: Mapping[str, Handler]) -> None:
        """Serve ``service_name``'s methods with these handlers, wrapped, as a generic handler (see the
        module docstring; the generated code offers the same handlers as a generic handler too, and the
        first generic handler that knows a method serves it)."""
        generic = grpc.method_handlers_generic_handler(service_name, dict(method_handlers))
        self.add_generic_rpc_handlers([generic])
