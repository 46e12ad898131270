"""Stored events as clients receive them: decoded, redacted for the receiver, wrapped in the envelope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.contract import AnyGame
from engines.envelope import wrap_event
from parlour.v1 import game_pb2
from service.app.records import GameRecord
from service.app.timestamps import timestamp
from service.store.port import StoredEvent

__all__ = ["client_event", "envelope_fields", "live_events", "sent_whole"]


def envelope_fields(stored: StoredEvent) -> dict[str, Any]:
    """Every field of the ``parlour.v1.Event`` envelope a stored event carries besides the game's own
    event: version, command id, time, think time, timeout flag, and the seat when one acted. Live events,
    exports and imported games all use this, so none of them loses a field."""
    fields: dict[str, Any] = {
        "version": stored.version,
        "command_id": stored.command_id,
        "recorded_at": timestamp(stored.recorded_at_ms),
        "think_time_ms": stored.think_ms,
        "timed_out": stored.timed_out,
    }
    if stored.seat is not None:
        fields["seat"] = stored.seat
    return fields


def client_event(game: AnyGame, stored: StoredEvent, seat: int | None, *, finished: bool) -> game_pb2.Event:
    """``stored`` as ``seat`` (None: a spectator) may see it. ``finished``: the game is over and its policy
    makes everything public, so the event is sent whole (see :func:`sent_whole`)."""
    event = game.redact(game.event_type.FromString(stored.data), seat, finished=finished)
    return wrap_event(game, event, **envelope_fields(stored))


def live_events(
    record: GameRecord, game: AnyGame, events: Sequence[Any], stored: Sequence[StoredEvent], seat: int | None
) -> list[game_pb2.Event]:
    """:func:`client_event` for each event a command just decided, still in memory (``events``: the game's
    own messages that ``stored`` hold serialized, so they are not parsed again), as ``seat`` may see it in
    the game ``record`` describes."""
    return [
        wrap_event(game, game.redact(event, seat, finished=sent_whole(record, kept)), **envelope_fields(kept))
        for event, kept in zip(events, stored, strict=True)
    ]


def sent_whole(record: GameRecord, stored: StoredEvent) -> bool:
    """Whether ``stored`` goes out unredacted: the game is over (as its record says, or ``stored`` is its
    final event) and its policy reveals everything after the end."""
    return record.reveal_after_end and (record.finished or stored.final)
