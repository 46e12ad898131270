"""Stored events as clients receive them: decoded, redacted for the receiver, wrapped in the envelope."""

from __future__ import annotations

from typing import Any

from engines.contract import AnyGame
from engines.envelope import wrap_event
from parlour.v1 import game_pb2
from service.app.records import timestamp
from service.store.port import StoredEvent

__all__ = ["client_event"]


def client_event(game: AnyGame, stored: StoredEvent, seat: int | None, *, finished: bool) -> game_pb2.Event:
    """``stored`` as ``seat`` (None: a spectator) may see it; ``finished`` if the game is over now."""
    event = game.redact(game.event_type.FromString(stored.data), seat, finished=finished)
    fields: dict[str, Any] = {
        "version": stored.version,
        "command_id": stored.command_id,
        "recorded_at": timestamp(stored.recorded_at_ms),
        "think_time_ms": stored.think_ms,
        "timed_out": stored.timed_out,
    }
    if stored.seat is not None:
        fields["seat"] = stored.seat
    return wrap_event(game, event, **fields)
