"""A gRPC call's invocation metadata, read once per call.

grpc.aio copies a call's metadata into a new tuple each time a handler asks for it. Every call passes
several layers that read it (its request id, the gate's API key and forwarded address, the handler's
bearer token), so the first read is kept for the rest of the call: in a context variable, as each call
runs in a task (and so a context) of its own.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import grpc

__all__ = ["Metadata", "invocation_metadata"]

#: A call's metadata: (key, value) pairs, values str or, for ``-bin`` keys, bytes.
Metadata = tuple[tuple[str, Any], ...]

_READ: ContextVar[tuple[object, Metadata] | None] = ContextVar("parlour_call_metadata", default=None)


def invocation_metadata(context: grpc.aio.ServicerContext[Any, Any]) -> Metadata:
    """``context``'s invocation metadata (empty when it has none), read from gRPC at its first use in the
    call."""
    known = _READ.get()
    if known is not None and known[0] is context:
        return known[1]
    metadata: Metadata = tuple(context.invocation_metadata() or ())
    _READ.set((context, metadata))
    return metadata
