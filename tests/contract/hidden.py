"""Per game: ways to change only other seats' hidden information in a game's setup events.

``VARIANTS[game](events, seat)`` returns copies of the setup events in which something ``seat`` may not
see is different (another seat's hand, the order of a face-down deck). The contract test checks that
``seat``'s view and its redacted events are the same in every copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parlour.v1 import oldmen_pb2, verraeter_pb2

Variant = Callable[[list[Any], int], list[list[Any]]]


def _copy(events: list[Any]) -> list[Any]:
    copies = []
    for event in events:
        copy = type(event)()
        copy.CopyFrom(event)
        copies.append(copy)
    return copies


def _oldmen(events: list[oldmen_pb2.OldmenEvent], seat: int) -> list[list[oldmen_pb2.OldmenEvent]]:
    variants = []
    hands = [e.hand_dealt for e in events if e.WhichOneof("kind") == "hand_dealt" and e.hand_dealt.seat != seat]
    if len(hands) >= 2:  # swap one card between two other seats' hands
        swapped = _copy(events)
        a, b = [e.hand_dealt for e in swapped if e.WhichOneof("kind") == "hand_dealt" and e.hand_dealt.seat != seat][:2]
        card_a, card_b = oldmen_pb2.OldmenCard(), oldmen_pb2.OldmenCard()
        card_a.CopyFrom(a.cards[0])
        card_b.CopyFrom(b.cards[0])
        a.cards[0].CopyFrom(card_b)
        b.cards[0].CopyFrom(card_a)
        variants.append(swapped)
    reordered = _copy(events)  # reverse the face-down part of the orangutan deck
    for event in reordered:
        if event.WhichOneof("kind") == "orangutan_deck_shuffled":
            order = list(event.orangutan_deck_shuffled.order)
            seats = sum(1 for e in events if e.WhichOneof("kind") == "hand_dealt")
            face_up = order[: seats + 1]
            del event.orangutan_deck_shuffled.order[:]
            event.orangutan_deck_shuffled.order.extend(face_up + order[seats + 1 :][::-1])
    variants.append(reordered)
    return variants


def _verraeter(events: list[verraeter_pb2.VerraeterEvent], seat: int) -> list[list[verraeter_pb2.VerraeterEvent]]:
    variants = []
    swapped = _copy(events)  # swap the first card of two other seats' starting hands
    hands = [e.hand_dealt for e in swapped if e.WhichOneof("kind") == "hand_dealt" and e.hand_dealt.seat != seat]
    if len(hands) >= 2:
        a, b = hands[:2]
        a.values[0], b.values[0] = b.values[0], a.values[0]
        variants.append(swapped)
    reordered = _copy(events)  # reverse the face-down draw deck
    for event in reordered:
        if event.WhichOneof("kind") == "supply_shuffled":
            order = list(event.supply_shuffled.order)[::-1]
            del event.supply_shuffled.order[:]
            event.supply_shuffled.order.extend(order)
    variants.append(reordered)
    return variants


def _libertalia(events: list[Any], seat: int) -> list[list[Any]]:
    """Libertalia's setup hides only the bag's order: reverse the part of it no box has drawn yet."""
    reordered = _copy(events)
    started = [e.voyage_started for e in events if e.WhichOneof("kind") == "voyage_started"]
    boxes = sum(len(box.tokens) for voyage in started for box in voyage.boxes)
    for event in reordered:
        if event.WhichOneof("kind") == "bag_filled":
            order = list(event.bag_filled.tokens)
            del event.bag_filled.tokens[:]
            event.bag_filled.tokens.extend(order[:boxes] + order[boxes:][::-1])
    return [reordered]


VARIANTS: dict[str, Variant] = {"oldmen": _oldmen, "verraeter": _verraeter, "libertalia": _libertalia}
