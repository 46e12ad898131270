"""A tournament's events as its log holds them: reading one back, and which event ends the log."""

from __future__ import annotations

from parlour.v1 import tournament_service_pb2 as pb
from service.store.port import StoredEvent

__all__ = ["is_final", "tournament_event"]


def tournament_event(stored: StoredEvent) -> pb.TournamentEvent:
    """A stored event as the tournament event it holds, with its version and time."""
    event = pb.TournamentEvent.FromString(stored.data)
    event.version = stored.version
    event.recorded_at.FromMilliseconds(stored.recorded_at_ms)
    return event


def is_final(event: pb.TournamentEvent) -> bool:
    """Whether ``event`` is the last a tournament's log holds (its tails end after it)."""
    return event.WhichOneof("kind") == "finished"
