"""Stream entries <-> stored events. An entry's id is ``<version>-0``; its fields are short names."""

from __future__ import annotations

from collections.abc import Mapping

from service.store.port import StoredEvent

__all__ = ["Entries", "parse_entry"]

#: Stream entries as redis-py returns them without decoding: (id, fields).
Entries = list[tuple[bytes, dict[bytes, bytes]]]


def parse_entry(entry_id: bytes | str, fields: Mapping[bytes, bytes]) -> StoredEvent:
    """A stream entry as a StoredEvent (fields: e payload, c command id, s seat, t time ms, cmd command,
    f final flag, ms think time, to timed-out flag)."""
    raw_id = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    seat = fields.get(b"s")
    return StoredEvent(
        version=int(raw_id.split("-", 1)[0]),
        data=fields[b"e"],
        command_id=fields.get(b"c", b"").decode(),
        seat=int(seat) if seat is not None else None,
        recorded_at_ms=int(fields.get(b"t", b"0")),
        command=fields.get(b"cmd", b""),
        final=fields.get(b"f") == b"1",
        think_ms=int(fields.get(b"ms", b"0")),
        timed_out=fields.get(b"to") == b"1",
    )
