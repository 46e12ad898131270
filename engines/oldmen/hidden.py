"""What Old Men of the Forest hides, as variants of its setup (see :class:`engines.contract.HiddenVariants`).

Hidden in the setup: each seat's hand from the others, and the face-down part of the orangutan deck
(after the row and the cards beside it) from everyone.
"""

from __future__ import annotations

from engines.contract import copy_messages
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["variants"]


def _hands(events: list[pb.OldmenEvent], seat: int | None) -> list[pb.OldmenHandDealt]:
    return [e.hand_dealt for e in events if e.WhichOneof("kind") == "hand_dealt" and e.hand_dealt.seat != seat]


def variants(events: list[pb.OldmenEvent], seat: int | None) -> list[list[pb.OldmenEvent]]:
    """Copies of the setup ``events`` that ``seat`` (``None``: a spectator) cannot tell apart from them: the
    first cards of two other seats' hands swapped, and the face-down part of the orangutan deck reversed."""
    found = []
    swapped = copy_messages(events)
    hands = _hands(swapped, seat)
    if len(hands) >= 2:
        a, b = hands[:2]
        card_a, card_b = pb.OldmenCard(), pb.OldmenCard()
        card_a.CopyFrom(a.cards[0])
        card_b.CopyFrom(b.cards[0])
        a.cards[0].CopyFrom(card_b)
        b.cards[0].CopyFrom(card_a)
        found.append(swapped)
    reordered = copy_messages(events)
    seats = sum(1 for e in events if e.WhichOneof("kind") == "hand_dealt")
    for event in reordered:
        if event.WhichOneof("kind") == "orangutan_deck_shuffled":
            order = list(event.orangutan_deck_shuffled.order)
            face_up = order[: seats + 1]
            del event.orangutan_deck_shuffled.order[:]
            event.orangutan_deck_shuffled.order.extend(face_up + order[seats + 1 :][::-1])
    found.append(reordered)
    return found
