"""Deciding commands of Verräter: what each command causes, and which commands are legal.

``legal_commands`` and ``decide`` share one check per command kind (``_why_not_*``), so the legal list a
bot sees is the set the engine accepts. Supply plays and discards are multisets of values: the legal list
holds each distinct multiset once, ascending; ``decide`` accepts the values in any order.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from engines.errors import IllegalCommandError, MalformedCommandError
from engines.verraeter.data import ESTATE, HOUSES, TRADING_POST, action_name, house_name
from engines.verraeter.evolve import remove_values
from engines.verraeter.flow import Chain, advance, pass_packet, start_draft
from engines.verraeter.state import Phase, State
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["check_command", "decide", "legal_commands", "pending"]

Command = pb.VerraeterCommand
_SIDES = {ESTATE: "estate", TRADING_POST: "trading post"}
_PHASE_VERB = {
    Phase.SETUP_ESTATES: "place your starting estate",
    Phase.BATTLEFIELD: "choose the battlefield",
    Phase.DRAFT: "take an action card from your packet",
    Phase.SUPPLY: "play supply cards",
    Phase.MERCENARY: "declare the house your Mercenary fights for",
    Phase.BUILD: "build, flip a building or pass",
    Phase.DISCARD: "discard down to the hand limit",
    Phase.OVER: "nothing: the game is over",
}
_KIND_VERB = {
    "choose_battlefield": "choose a battlefield",
    "take_action_card": "take an action card",
    "play_supply": "play supply cards",
    "declare_mercenary": "declare a house for the Mercenary",
    "place_building": "place a building",
    "flip_building": "flip a building",
    "pass_build": "pass the build",
    "discard_cards": "discard cards",
}
_KIND_PHASES = {
    "choose_battlefield": (Phase.BATTLEFIELD,),
    "take_action_card": (Phase.DRAFT,),
    "play_supply": (Phase.SUPPLY,),
    "declare_mercenary": (Phase.MERCENARY,),
    "place_building": (Phase.SETUP_ESTATES, Phase.BUILD),
    "flip_building": (Phase.BUILD,),
    "pass_build": (Phase.BUILD,),
    "discard_cards": (Phase.DISCARD,),
}


def pending(state: State) -> frozenset[int]:
    """The seats that must act now: one seat, except in the discard phase (all seats above the limit)."""
    finder = _PENDING.get(state.phase)
    if finder is None:
        return frozenset()
    seats = finder(state)
    return frozenset(s for s in seats if s >= 0)


def legal_commands(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may submit now, the default move first (see each ``_legal_*``)."""
    if seat not in pending(state):
        return []
    return _LEGAL[state.phase](state, seat)


def check_command(state: State, command: Command) -> None:
    """Raise MalformedCommandError unless ``command`` can be understood in this game, whatever the phase:
    a kind is set, positions are on the ring, a side, a card and a house are named, values are 1 or more."""
    kind = command.WhichOneof("kind")
    if kind is None:
        raise MalformedCommandError("the command names no action: set one of " + ", ".join(_KIND_PHASES))
    _SHAPE[kind](state, getattr(command, kind))


def decide(state: State, seat: int, command: Command) -> list[pb.VerraeterEvent]:
    """The events of ``command`` by a pending ``seat``; raises Malformed/IllegalCommandError otherwise
    (malformed first: :func:`check_command`)."""
    check_command(state, command)
    kind = command.WhichOneof("kind")
    assert kind is not None
    if state.phase not in _KIND_PHASES[kind]:
        raise IllegalCommandError(f"you cannot {_KIND_VERB[kind]} now: {_PHASE_VERB[state.phase]}")
    decider: Callable[[State, int, Any], list[pb.VerraeterEvent]] = _DECIDE[kind]
    return decider(state, seat, getattr(command, kind))


def _check(reason: str | None) -> None:
    if reason:
        raise IllegalCommandError(reason)


# --- shape (malformed), checked before the phase -------------------------------------------------------


def _position(state: State, position: int) -> None:
    if not 0 <= position < state.ring:
        raise MalformedCommandError(f"a land position is a number from 0 to {state.ring - 1}, not {position}")


def _shape_at(state: State, command: Any) -> None:
    _position(state, command.position)


def _shape_place(state: State, command: pb.VerraeterPlaceBuilding) -> None:
    _position(state, command.position)
    if command.side not in _SIDES:
        raise MalformedCommandError("a building side is ESTATE or TRADING_POST")


def _shape_take(state: State, command: pb.VerraeterTakeActionCard) -> None:
    if command.card == pb.VERRAETER_ACTION_UNSPECIFIED or command.card not in pb.VerraeterAction.values():
        raise MalformedCommandError("name the action card you take (TRAITOR, DIPLOMAT2, ...)")


def _shape_values(state: State, command: Any) -> None:
    if any(v < 1 for v in command.values):
        raise MalformedCommandError("supply card values are positive numbers")


def _shape_declare(state: State, command: pb.VerraeterDeclareMercenary) -> None:
    if command.house not in HOUSES:
        raise MalformedCommandError("declare EAGLE or ROSE")


def _shape_none(state: State, command: Any) -> None:
    """A command without fields is always understood."""


_SHAPE: dict[str, Callable[[State, Any], None]] = {
    "choose_battlefield": _shape_at,
    "take_action_card": _shape_take,
    "play_supply": _shape_values,
    "declare_mercenary": _shape_declare,
    "place_building": _shape_place,
    "flip_building": _shape_at,
    "pass_build": _shape_none,
    "discard_cards": _shape_values,
}


def _land(state: State, position: int) -> str:
    return f"land {position} ({state.lands[position].card_id})"


# --- setup estates and the Builder ------------------------------------------------------------------


def _why_not_place(state: State, seat: int, position: int, side: int) -> str | None:
    if state.phase is Phase.SETUP_ESTATES and side != ESTATE:
        return "your starting building goes under a land estate side up"
    if state.players[seat].reserve <= 0:
        return "you have no building left in your reserve"
    if state.lands[position].owner >= 0:
        return f"{_land(state, position)} already has a building: choose a land without one"
    limit = state.rules.trading_post_limit
    if side == TRADING_POST and state.trading_posts(seat) >= limit:
        return f"you already have {limit} trading posts on the board"
    return None


def _why_not_flip(state: State, seat: int, position: int) -> str | None:
    land = state.lands[position]
    if land.owner != seat:
        return f"you have no building under {_land(state, position)}"
    limit = state.rules.trading_post_limit
    if land.side == ESTATE and state.trading_posts(seat) >= limit:
        return f"you already have {limit} trading posts on the board"
    return None


def _place(state: State, seat: int, command: pb.VerraeterPlaceBuilding) -> list[pb.VerraeterEvent]:
    position = command.position
    _check(_why_not_place(state, seat, position, command.side))
    placed = pb.VerraeterBuildingPlaced(seat=seat, position=position, side=command.side)
    return _then_advance(state, pb.VerraeterEvent(building_placed=placed))


def _flip(state: State, seat: int, command: pb.VerraeterFlipBuilding) -> list[pb.VerraeterEvent]:
    position = command.position
    _check(_why_not_flip(state, seat, position))
    side = TRADING_POST if state.lands[position].side == ESTATE else ESTATE
    flipped = pb.VerraeterBuildingFlipped(seat=seat, position=position, side=side)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    return _then_advance(state, pb.VerraeterEvent(building_flipped=flipped))


def _pass_build(state: State, seat: int, command: pb.VerraeterPassBuild) -> list[pb.VerraeterEvent]:
    return _then_advance(state, pb.VerraeterEvent(build_passed=pb.VerraeterBuildPassed(seat=seat)))


def _legal_setup(state: State, seat: int) -> list[Command]:
    """Estate under each free land, lowest position first."""
    return [
        Command(place_building=pb.VerraeterPlaceBuilding(position=p, side=ESTATE))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        for p in range(state.ring)
        if _why_not_place(state, seat, p, ESTATE) is None
    ]


def _legal_build(state: State, seat: int) -> list[Command]:
    """Pass first, then every flip, then every placement (each side)."""
    commands = [Command(pass_build=pb.VerraeterPassBuild())]
    commands += [
        Command(flip_building=pb.VerraeterFlipBuilding(position=p))
        for p in range(state.ring)
        if _why_not_flip(state, seat, p) is None
    ]
    commands += [
        Command(place_building=pb.VerraeterPlaceBuilding(position=p, side=side))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        for side in (ESTATE, TRADING_POST)
        for p in range(state.ring)
        if _why_not_place(state, seat, p, side) is None
    ]
    return commands


# --- battlefield and draft --------------------------------------------------------------------------


def _why_not_battlefield(state: State, seat: int, position: int) -> str | None:
    if not state.is_contested(position):
        nxt = (position + 1) % state.ring
        house = house_name(state.lands[position].house)
        return f"lands {position} and {nxt} both belong to the {house} house: choose neighbours of different houses"
    return None


def _battlefield(state: State, seat: int, command: pb.VerraeterChooseBattlefield) -> list[pb.VerraeterEvent]:
    position = command.position
    _check(_why_not_battlefield(state, seat, position))
    chain = Chain(state)
    chosen = pb.VerraeterBattlefieldChosen(seat=seat, position=position, round=state.round)
    chain.emit(pb.VerraeterEvent(battlefield_chosen=chosen))
    start_draft(chain)
    return chain.events


def _legal_battlefield(state: State, seat: int) -> list[Command]:
    return [
        Command(choose_battlefield=pb.VerraeterChooseBattlefield(position=p))
        for p in range(state.ring)
        if _why_not_battlefield(state, seat, p) is None
    ]


def _why_not_take(state: State, seat: int, card: int) -> str | None:
    if card not in state.packet:
        return f"the {action_name(card)} is not in the packet you hold"
    return None


def _take(state: State, seat: int, command: pb.VerraeterTakeActionCard) -> list[pb.VerraeterEvent]:
    _check(_why_not_take(state, seat, command.card))
    chain = Chain(state)
    chain.emit(pb.VerraeterEvent(action_card_taken=pb.VerraeterActionCardTaken(seat=seat, card=command.card)))
    if chain.state.phase is Phase.DRAFT:
        pass_packet(chain, state.seat_after(seat), chain.state.packet)
    return chain.events


def _legal_take(state: State, seat: int) -> list[Command]:
    return [Command(take_action_card=pb.VerraeterTakeActionCard(card=c)) for c in sorted(state.packet)]  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


# --- supply, mercenary, discard ---------------------------------------------------------------------


def _why_not_held(state: State, seat: int, values: Sequence[int]) -> str | None:
    """Why the seat cannot give up these card values from its hand, or None if it holds them all."""
    if remove_values(state.players[seat].hand, values) is None:
        return f"you do not hold {_describe(values)}: your hand is {_describe(state.players[seat].hand)}"
    return None


def _why_not_play(state: State, seat: int, values: Sequence[int]) -> str | None:
    if len(values) > state.rules.max_play:
        return f"you may play at most {state.rules.max_play} supply cards"
    return _why_not_held(state, seat, values)


def _play(state: State, seat: int, command: pb.VerraeterPlaySupply) -> list[pb.VerraeterEvent]:
    values = list(command.values)
    _check(_why_not_play(state, seat, values))
    played = pb.VerraeterSupplyPlayed(seat=seat, values=sorted(values))
    return _then_advance(state, pb.VerraeterEvent(supply_played=played))


def _legal_play(state: State, seat: int) -> list[Command]:
    """Playing nothing first, then every distinct multiset of hand values (smaller first)."""
    subsets = _subsets(state.players[seat].hand, 0, state.rules.max_play)
    return [
        Command(play_supply=pb.VerraeterPlaySupply(values=v)) for v in subsets if _why_not_play(state, seat, v) is None
    ]


def _declare(state: State, seat: int, command: pb.VerraeterDeclareMercenary) -> list[pb.VerraeterEvent]:
    declared = pb.VerraeterMercenaryDeclared(seat=seat, house=command.house)
    return _then_advance(state, pb.VerraeterEvent(mercenary_declared=declared))


def _legal_declare(state: State, seat: int) -> list[Command]:
    """The seat's own house first."""
    own = state.players[seat].house
    houses = sorted(HOUSES, key=lambda h: h != own)
    return [Command(declare_mercenary=pb.VerraeterDeclareMercenary(house=h)) for h in houses]  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def _why_not_discard(state: State, seat: int, values: Sequence[int]) -> str | None:
    limit = state.rules.hand_limit
    excess = len(state.players[seat].hand) - limit
    if len(values) != excess:
        return f"discard exactly {excess} card{'s' if excess != 1 else ''} to keep {limit}"
    return _why_not_held(state, seat, values)


def _discard(state: State, seat: int, command: pb.VerraeterDiscardCards) -> list[pb.VerraeterEvent]:
    values = list(command.values)
    _check(_why_not_discard(state, seat, values))
    discarded = pb.VerraeterCardsDiscarded(seat=seat, values=sorted(values))
    return _then_advance(state, pb.VerraeterEvent(cards_discarded=discarded))


def _legal_discard(state: State, seat: int) -> list[Command]:
    """Every distinct multiset of the right size, lowest values first."""
    excess = len(state.players[seat].hand) - state.rules.hand_limit
    subsets = _subsets(state.players[seat].hand, excess, excess)
    return [
        Command(discard_cards=pb.VerraeterDiscardCards(values=v))
        for v in subsets
        if _why_not_discard(state, seat, v) is None
    ]


# --- helpers ----------------------------------------------------------------------------------------


def _then_advance(state: State, event: pb.VerraeterEvent) -> list[pb.VerraeterEvent]:
    """``event``, then every automatic step it triggers."""
    chain = Chain(state)
    chain.emit(event)
    return advance(chain)


@lru_cache(maxsize=4096)
def _subsets(hand: tuple[int, ...], smallest: int, largest: int) -> tuple[tuple[int, ...], ...]:
    """Distinct sub-multisets of ``hand`` with ``smallest``..``largest`` cards, by size then values."""
    found: set[tuple[int, ...]] = set()
    for size in range(smallest, min(largest, len(hand)) + 1):
        found.update(itertools.combinations(sorted(hand), size))
    return tuple(sorted(found, key=lambda s: (len(s), s)))


def _describe(values: Sequence[int]) -> str:
    if not values:
        return "no cards"
    counts = Counter(values)
    return ", ".join(f"{n} x {v}" if n > 1 else str(v) for v, n in sorted(counts.items()))


_DECIDE: dict[str, Callable[[State, int, Any], list[pb.VerraeterEvent]]] = {
    "choose_battlefield": _battlefield,
    "take_action_card": _take,
    "play_supply": _play,
    "declare_mercenary": _declare,
    "place_building": _place,
    "flip_building": _flip,
    "pass_build": _pass_build,
    "discard_cards": _discard,
}
_PENDING: dict[Phase, Callable[[State], tuple[int, ...]]] = {
    Phase.SETUP_ESTATES: lambda state: (state.setup_seat,),
    Phase.BATTLEFIELD: lambda state: (state.strategist,),
    Phase.DRAFT: lambda state: (state.packet_seat,),
    Phase.SUPPLY: lambda state: (state.supply_seat,),
    Phase.MERCENARY: lambda state: (state.holder(pb.VERRAETER_ACTION_MERCENARY),),
    Phase.BUILD: lambda state: (state.holder(pb.VERRAETER_ACTION_BUILDER),),
    Phase.DISCARD: lambda state: state.discarding,
}
_LEGAL: dict[Phase, Callable[[State, int], list[Command]]] = {
    Phase.SETUP_ESTATES: _legal_setup,
    Phase.BATTLEFIELD: _legal_battlefield,
    Phase.DRAFT: _legal_take,
    Phase.SUPPLY: _legal_play,
    Phase.MERCENARY: _legal_declare,
    Phase.BUILD: _legal_build,
    Phase.DISCARD: _legal_discard,
}
