"""How large a request may be, by method: every call takes at most the server's request limit, except the
calls that carry a whole game export (verify, import, view a replay), which take up to the export limit,
since a long game's export is larger than any other request."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf import descriptor_pool
from google.protobuf.descriptor import Descriptor

from parlour.v1 import replay_service_pb2

__all__ = ["RequestSizes"]

_EXPORT = replay_service_pb2.GameExport.DESCRIPTOR.full_name


def _carries_export(message: Descriptor) -> bool:
    return any(field.message_type is not None and field.message_type.full_name == _EXPORT for field in message.fields)


@dataclass(frozen=True)
class RequestSizes:
    """The request limit (``default``) and the larger one of the calls that carry an export (``exports``)."""

    default: int
    exports: int

    @property
    def largest(self) -> int:
        """The largest request any call takes (what the transports must be able to read)."""
        return max(self.default, self.exports)

    def of(self, method: str) -> int:
        """The limit of ``method`` (``parlour.v1.ReplayService.VerifyGame``, or the gRPC path
        ``/parlour.v1.ReplayService/VerifyGame``)."""
        name = method.lstrip("/").replace("/", ".")
        try:
            found = descriptor_pool.Default().FindMethodByName(name)
        except KeyError:
            return self.default
        return self.exports if _carries_export(found.input_type) else self.default
