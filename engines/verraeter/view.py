"""What a seat or a spectator of Verräter may see: the view of a state and redacted events (rules 6)."""

from __future__ import annotations

from engines.verraeter.state import Phase, State
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["redact", "view"]

_PHASES = {
    Phase.SETUP_ESTATES: pb.VERRAETER_PHASE_SETUP_ESTATES,
    Phase.BATTLEFIELD: pb.VERRAETER_PHASE_BATTLEFIELD,
    Phase.DRAFT: pb.VERRAETER_PHASE_DRAFT,
    Phase.SUPPLY: pb.VERRAETER_PHASE_SUPPLY,
    Phase.MERCENARY: pb.VERRAETER_PHASE_MERCENARY,
    Phase.BUILD: pb.VERRAETER_PHASE_BUILD,
    Phase.DISCARD: pb.VERRAETER_PHASE_DISCARD,
    Phase.OVER: pb.VERRAETER_PHASE_OVER,
}
# Phases in which the chosen action cards are face up (after the reveal, until the round ends).
_REVEALED = frozenset({Phase.MERCENARY, Phase.BUILD, Phase.DISCARD, Phase.OVER})


def view(state: State, seat: int | None, *, reveal: bool = False) -> pb.VerraeterView:
    """The board as ``seat`` sees it: its own hand and action card, the packet only while it holds it, and
    everything public. Never the deck order, the hidden action card, the left-overs or other hands, even
    once the game is over; with ``reveal`` (a finished game whose policy makes everything public) every
    hand, the packet and every chosen action card are shown to all."""
    result = pb.VerraeterView(
        phase=_PHASES.get(state.phase, pb.VERRAETER_PHASE_UNSPECIFIED),
        round=state.round,
        rounds=state.rounds,
        start_seat=state.start_seat,
        strategist_seat=state.strategist,
        deck_count=len(state.deck),
        discard=state.discard,
        packet_count=len(state.packet),
        land_types=[t.to_pb() for t in state.land_types],
        options=[pb.VerraeterOption(name=k, value=v) for k, v in state.options],
    )
    if state.battlefield >= 0:
        result.battlefield = state.battlefield
    if state.packet_seat >= 0:
        result.packet_seat = state.packet_seat
        if state.packet_seat == seat or reveal:
            result.packet.extend(sorted(state.packet))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    if state.conflict is not None:
        c = state.conflict
        result.conflict.CopyFrom(
            pb.VerraeterConflictResolved(
                eagle_strength=c.eagle_strength,
                rose_strength=c.rose_strength,
                winner=c.winner,  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
                eagle_position=c.eagle_position,
                rose_position=c.rose_position,
                winners=c.winners,
            )
        )
    for position, land in enumerate(state.lands):
        land_view = result.lands.add(
            position=position,
            card_id=land.card_id,
            type=land.type.id,
            base=land.type.base,
            house=land.house,
        )
        if land.owner >= 0:
            land_view.building_owner = land.owner
            land_view.building_side = land.side  # type: ignore[assignment]  # protobuf's stubs type enum fields as their ValueType, not int
    revealed = state.phase in _REVEALED or reveal
    for s, player in enumerate(state.players):
        seat_view = result.seats.add(
            seat=s,
            house=player.house,
            vp=player.vp,
            hand_count=len(player.hand),
            reserve=player.reserve,
            played=player.played,
            has_played=player.has_played,
            has_action=bool(player.action),
            drawn=player.drawn,
        )
        if s == seat or reveal:
            seat_view.hand.extend(player.hand)
        if player.action and (s == seat or revealed):
            seat_view.action = player.action  # type: ignore[assignment]  # protobuf's stubs type enum fields as their ValueType, not int
        if player.action == pb.VERRAETER_ACTION_MERCENARY and state.mercenary_house:
            seat_view.mercenary_house = state.mercenary_house  # type: ignore[assignment]  # protobuf's stubs type enum fields as their ValueType, not int
    return result


def redact(event: pb.VerraeterEvent, seat: int | None, *, finished: bool = False) -> pb.VerraeterEvent:
    """``event`` as ``seat`` may see it: deck orders, the action-card order (the hidden card), packets of
    other seats, other seats' hands, draws and chosen action cards, the seed and its salt (in the first and
    the final event) are removed. ``finished`` (a finished game whose policy makes everything public):
    the event is returned whole."""
    kind = event.WhichOneof("kind")
    if finished:
        return event
    redactor = _REDACT.get(kind or "")
    if redactor is None:
        return event
    copy = pb.VerraeterEvent()
    copy.CopyFrom(event)
    return copy if redactor(copy, seat, finished) else event


def _seed(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    e.game_started.ClearField("seed")
    e.game_started.ClearField("seed_salt")
    return True


def _final_seed(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    e.game_finished.ClearField("seed")
    e.game_finished.ClearField("seed_salt")
    return True


def _hand(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    if e.hand_dealt.seat == seat:
        return False
    del e.hand_dealt.values[:]
    return True


def _drawn(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    if e.cards_drawn.seat == seat:
        return False
    del e.cards_drawn.values[:]
    return True


def _taken(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    if e.action_card_taken.seat == seat:
        return False
    e.action_card_taken.ClearField("card")
    return True


def _packet(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    if e.packet_passed.seat == seat:
        return False
    del e.packet_passed.cards[:]
    return True


def _supply_order(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    del e.supply_shuffled.order[:]
    return True


def _reshuffle_order(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    del e.deck_reshuffled.order[:]
    return True


def _action_order(e: pb.VerraeterEvent, seat: int | None, finished: bool) -> bool:
    del e.action_cards_shuffled.order[:]
    return True


_REDACT = {
    "game_started": _seed,
    "game_finished": _final_seed,
    "hand_dealt": _hand,
    "cards_drawn": _drawn,
    "action_card_taken": _taken,
    "packet_passed": _packet,
    "supply_shuffled": _supply_order,
    "deck_reshuffled": _reshuffle_order,
    "action_cards_shuffled": _action_order,
}
