"""What Libertalia hides, as variants of its setup (see :class:`engines.contract.HiddenVariants`).

Libertalia's setup hides only the order of the loot bag, from everyone.
"""

from __future__ import annotations

from engines.contract import copy_messages
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["variants"]


def variants(events: list[pb.LibertaliaEvent], seat: int | None) -> list[list[pb.LibertaliaEvent]]:
    """Copies of the setup ``events`` that no seat can tell apart from them: the part of the loot bag no
    box has drawn yet, reversed (``seat`` changes nothing)."""
    reordered = copy_messages(events)
    started = [e.voyage_started for e in events if e.WhichOneof("kind") == "voyage_started"]
    drawn = sum(len(box.tokens) for voyage in started for box in voyage.boxes)
    for event in reordered:
        if event.WhichOneof("kind") == "bag_filled":
            order = list(event.bag_filled.tokens)
            del event.bag_filled.tokens[:]
            event.bag_filled.tokens.extend(order[:drawn] + order[drawn:][::-1])
    return [reordered]
