"""Times as the API sends them: protobuf Timestamps from milliseconds since the epoch."""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp

__all__ = ["timestamp"]


def timestamp(ms: int) -> Timestamp:
    """A protobuf Timestamp from milliseconds since the epoch (as ``Timestamp.FromMilliseconds`` sets it,
    without its pure-Python range check: a time in ms since the epoch is always in range)."""
    seconds, millis = divmod(ms, 1000)
    return Timestamp(seconds=seconds, nanos=millis * 1_000_000)
