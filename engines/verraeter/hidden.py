"""What Verräter hides, as variants of its setup (see :class:`engines.contract.HiddenVariants`).

Hidden in the setup: each seat's starting hand from the others, and the order of the face-down supply
deck from everyone.
"""

from __future__ import annotations

from engines.contract import copy_messages
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["variants"]


def variants(events: list[pb.VerraeterEvent], seat: int | None) -> list[list[pb.VerraeterEvent]]:
    """Copies of the setup ``events`` that ``seat`` (``None``: a spectator) cannot tell apart from them: a
    card of one other seat's starting hand swapped with a different one of another's (when the hands
    differ), and the supply deck reversed."""
    found = []
    swapped = copy_messages(events)
    hands = [e.hand_dealt for e in swapped if e.WhichOneof("kind") == "hand_dealt" and e.hand_dealt.seat != seat]
    if len(hands) >= 2:
        a, b = hands[:2]
        pairs = [(i, j) for i, x in enumerate(a.values) for j, y in enumerate(b.values) if x != y]
        if pairs:  # starting hands alike in every seat (no random start hand) hide nothing
            i, j = pairs[0]
            a.values[i], b.values[j] = b.values[j], a.values[i]
            found.append(swapped)
    reordered = copy_messages(events)
    for event in reordered:
        if event.WhichOneof("kind") == "supply_shuffled":
            order = list(event.supply_shuffled.order)[::-1]
            del event.supply_shuffled.order[:]
            event.supply_shuffled.order.extend(order)
    found.append(reordered)
    return found
