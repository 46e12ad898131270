"""Replies shared by many streams are serialized once.

The application hands every watcher of one audience the very same reply object (service.app.fanout). The
server gives the listed streaming methods a response serializer that remembers the bytes of
recent replies by the reply's identity, so a thousand spectators of a game cost one serialization per
event, not a thousand.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Any, TypeAlias

import grpc

__all__ = ["SharedReplies", "WireCache"]

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the type stubs


class WireCache:
    """The serialized bytes of recent replies, by the reply object's identity. Each entry holds its reply,
    so an identity is never reused while it is cached."""

    def __init__(self, serialize: Callable[[Any], bytes], capacity: int = 4096) -> None:
        self._serialize = serialize
        self._capacity = capacity
        self._wire: OrderedDict[int, tuple[Any, bytes]] = OrderedDict()

    def __call__(self, reply: Any) -> bytes:
        """``reply`` serialized (replies must not change once sent: they are shared)."""
        hit = self._wire.get(id(reply))
        if hit is not None and hit[0] is reply:
            return hit[1]
        data = self._serialize(reply)
        self._wire[id(reply)] = (reply, data)
        if len(self._wire) > self._capacity:
            self._wire.popitem(last=False)
        return data


class SharedReplies:
    """Serializes the replies of ``methods`` (full names, ``/package.Service/Method``) through a
    :class:`WireCache` per method. A :data:`~service.api.grpc_wrapping.HandlerWrapper`."""

    def __init__(self, methods: Collection[str]) -> None:
        self._methods = frozenset(methods)

    def __call__(self, method: str, handler: Handler) -> Handler:
        """``handler`` of ``method``, with a cached serializer if ``method`` is listed."""
        if method not in self._methods or handler.response_serializer is None:
            return handler
        shared: Handler = handler._replace(response_serializer=WireCache(handler.response_serializer))  # type: ignore[attr-defined]  # grpc's handler is a namedtuple at run time; its stubs omit _replace
        return shared
