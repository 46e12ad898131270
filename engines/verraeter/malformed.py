"""Commands Verräter cannot understand, for the contract suite's malformed-before-illegal test.

Each is refused by ``check_command`` in every phase, for every seat and after the end (see
``tests/contract/test_malformed.py``).
"""

from __future__ import annotations

from engines.verraeter.state import State
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["ACTING_PHASES", "UNDERSTOOD_KINDS", "commands"]

#: Kinds whose every value is understood: none.
UNDERSTOOD_KINDS: frozenset[str] = frozenset()

#: The phases a seat can be asked to act in, and the end: random play reaches every one. (DISCARD cannot
#: happen with the shipped data, whose refills stop at the hand limit; a built state probes it in
#: tests/engines/verraeter/test_after_battle.py.)
ACTING_PHASES: frozenset[str] = frozenset(
    {"SETUP_ESTATES", "BATTLEFIELD", "DRAFT", "SUPPLY", "MERCENARY", "BUILD", "OVER"}
)


def commands(state: State) -> list[pb.VerraeterCommand]:
    """Malformed commands: no kind, lands off the ring, unknown cards and houses, supply values below 1."""
    c, ring, estate = pb.VerraeterCommand, state.ring, pb.VERRAETER_BUILDING_SIDE_ESTATE
    return [
        c(),
        c(choose_battlefield=pb.VerraeterChooseBattlefield(position=-1)),
        c(choose_battlefield=pb.VerraeterChooseBattlefield(position=ring)),
        c(take_action_card=pb.VerraeterTakeActionCard()),
        c(take_action_card=pb.VerraeterTakeActionCard(card=999)),  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        c(play_supply=pb.VerraeterPlaySupply(values=[0])),
        c(play_supply=pb.VerraeterPlaySupply(values=[3, -2])),
        c(declare_mercenary=pb.VerraeterDeclareMercenary()),
        c(declare_mercenary=pb.VerraeterDeclareMercenary(house=77)),  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        c(place_building=pb.VerraeterPlaceBuilding(position=ring, side=estate)),
        c(place_building=pb.VerraeterPlaceBuilding(position=0)),
        c(flip_building=pb.VerraeterFlipBuilding(position=-1)),
        c(flip_building=pb.VerraeterFlipBuilding(position=ring + 5)),
        c(discard_cards=pb.VerraeterDiscardCards(values=[0])),
    ]
