"""A tournament's events as its log holds them: reading one back, the id that makes a scheduler's append
idempotent, and which event ends the log."""

from __future__ import annotations

from parlour.v1 import tournament_service_pb2 as pb
from service.store.port import StoredEvent

__all__ = ["event_id", "is_final", "tournament_event"]


def tournament_event(stored: StoredEvent) -> pb.TournamentEvent:
    """A stored event as the tournament event it holds, with its version and time."""
    event = pb.TournamentEvent.FromString(stored.data)
    event.version = stored.version
    event.recorded_at.FromMilliseconds(stored.recorded_at_ms)
    return event


def event_id(event: pb.TournamentEvent) -> str:
    """The id of a step the scheduler takes at most once per tournament, which it may send again (after a
    lost reply, a restart, or from a second process): a round's start, the end, a table's scheduling, a
    table's result. "" for the other events (registrations and the start, which callers decide from the
    state they read)."""
    kind = event.WhichOneof("kind")
    if kind == "round_started":
        return f"round:{event.round_started.round}"
    if kind == "finished":
        return "finished"
    if kind == "table_scheduled":
        return f"table:{event.table_scheduled.round}:{event.table_scheduled.table}"
    if kind == "table_finished":
        return f"result:{event.table_finished.game_id}"
    return ""


def is_final(event: pb.TournamentEvent) -> bool:
    """Whether ``event`` is the last a tournament's log holds (its tails end after it)."""
    return event.WhichOneof("kind") == "finished"
