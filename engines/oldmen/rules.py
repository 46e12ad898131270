"""Deciding commands of Old Men of the Forest: what each command causes, and which commands are legal.

``legal_commands`` and ``decide`` share one check per command kind (``_why_not_*``), so the legal list a
bot sees is the set the engine accepts. Deciding also computes the state the events lead to, with the
transitions of :mod:`engines.oldmen.evolve` that folding the events would call
(:func:`decide_and_evolve`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from operator import itemgetter
from types import MappingProxyType
from typing import Any, TypeVar

from engines.errors import IllegalCommandError, MalformedCommandError
from engines.oldmen.data import DECK, DECK_BY_PAIR, Card
from engines.oldmen.evolve import declined, discarded, evolve, played, ranked, revealed, saved, took
from engines.oldmen.scoring import deal_scores, match_result
from engines.oldmen.setup import deal_events
from engines.oldmen.state import Phase, SeatState, State
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["check_command", "decide", "decide_and_evolve", "legal_commands"]

_PHASE_VERB = {
    Phase.PLAY: "play a card from your hand",
    Phase.TAKE: "take a card from the trick",
    Phase.SAVE: "save an orangutan or decline to save",
}
_KIND_PHASE = {
    "play_card": Phase.PLAY,
    "take_card": Phase.TAKE,
    "save_orangutan": Phase.SAVE,
    "decline_save": Phase.SAVE,
}
_BY_VALUE = itemgetter(1, 0)  # a Card's (value, colour)

#: A decided command's events and the state they lead to.
Decided = tuple[list[pb.OldmenEvent], State]


def legal_commands(state: State, seat: int) -> list[pb.OldmenCommand]:
    """Every command ``seat`` may submit now, the default move first (lowest card, first free card, pass)."""
    if state.phase is Phase.PLAY and seat == state.to_play:
        return [_play_command(c) for c in sorted(state.players[seat].hand, key=_BY_VALUE)]
    if state.phase is Phase.TAKE and seat == state.acting_winner:
        return [
            pb.OldmenCommand(take_card=pb.OldmenTakeCard(from_seat=s))
            for s, _ in state.trick
            if _why_not_take(state, seat, s) is None
        ]
    if state.phase is Phase.SAVE and seat == state.acting_winner:
        saves = [
            pb.OldmenCommand(save_orangutan=pb.OldmenSaveOrangutan(orangutan_id=o))
            for o in state.row
            if _may_save(state, seat, o)
        ]
        return [pb.OldmenCommand(decline_save=pb.OldmenDeclineSave()), *saves]
    return []


def check_command(state: State, command: pb.OldmenCommand) -> None:
    """Raise MalformedCommandError unless ``command`` can be understood in this game, whatever the phase:
    a kind is set and a card has a colour and a value 1..10. (A seat not at the table or an orangutan the
    game does not have is understood, and illegal: there is no such card to take or save.)"""
    kind = command.WhichOneof("kind")
    if kind is None:
        raise MalformedCommandError(
            "the command names no action: set play_card, take_card, save_orangutan or decline_save"
        )
    if kind == "play_card":
        parse_card(command.play_card.card)


def decide(state: State, seat: int, command: pb.OldmenCommand) -> list[pb.OldmenEvent]:
    """The events of ``command`` by a pending ``seat``; raises Malformed/IllegalCommandError otherwise
    (malformed first: :func:`check_command`)."""
    return decide_and_evolve(state, seat, command)[0]


def decide_and_evolve(state: State, seat: int, command: pb.OldmenCommand) -> Decided:
    """:func:`decide`, and the state its events lead to (equal to folding them onto ``state``)."""
    check_command(state, command)
    kind = command.WhichOneof("kind")
    assert kind is not None
    if _KIND_PHASE[kind] is not state.phase:
        raise IllegalCommandError(f"you cannot {kind.replace('_', ' ')} now: {_PHASE_VERB[state.phase]}")
    decider: Callable[[State, int, Any], Decided] = _DECIDE[kind]
    return decider(state, seat, getattr(command, kind))


def parse_card(card: pb.OldmenCard) -> Card:
    """The card a message names; raises MalformedCommandError if no such card exists."""
    parsed = DECK_BY_PAIR.get((card.colour, card.value))
    if parsed is None:
        raise MalformedCommandError("a card needs a colour (red, yellow, blue, green, brown) and a value from 1 to 10")
    return parsed


_M = TypeVar("_M", pb.OldmenCommand, pb.OldmenEvent)


def _by_card(message_type: type[_M], build: Callable[[Card], _M]) -> Callable[[Card], _M]:
    """A maker of new messages equal to ``build(card)``: for a card of the deck it parses the message
    serialized once here, at import (several times faster than building the nested messages)."""
    encoded = MappingProxyType({card: build(card).SerializeToString() for card in DECK})

    def make(card: Card) -> _M:
        known = encoded.get(card)
        return build(card) if known is None else message_type.FromString(known)

    return make


_play_command = _by_card(pb.OldmenCommand, lambda c: pb.OldmenCommand(play_card=pb.OldmenPlayCard(card=c.to_pb())))
_card_played = _by_card(pb.OldmenEvent, lambda c: pb.OldmenEvent(card_played=pb.OldmenCardPlayed(card=c.to_pb())))
_card_taken = _by_card(pb.OldmenEvent, lambda c: pb.OldmenEvent(card_taken=pb.OldmenCardTaken(card=c.to_pb())))


# --- play -------------------------------------------------------------------------------------------


def _play(state: State, seat: int, command: pb.OldmenPlayCard) -> Decided:
    card = parse_card(command.card)
    if card not in state.players[seat].hand:
        raise IllegalCommandError(f"the {card} is not in your hand")
    event = _card_played(card)
    event.card_played.seat = seat
    events = [event]
    after = played(state, seat, card)
    if len(after.trick) == state.seats:
        first, second = _rank(after.trick)
        events.append(pb.OldmenEvent(trick_ranked=pb.OldmenTrickRanked(first_seat=first, second_seat=second)))
        after = ranked(after, first, second)
    return events, after


def _rank(trick: tuple[tuple[int, Card], ...]) -> tuple[int, int]:
    """First and second winner: value descending, ties to the card played earlier (D6)."""
    order = sorted(range(len(trick)), key=lambda position: (-trick[position][1].value, position))
    return trick[order[0]][0], trick[order[1]][0]


# --- take -------------------------------------------------------------------------------------------


def _why_not_take(state: State, seat: int, from_seat: int) -> str | None:
    if from_seat == seat:
        return "you cannot take your own card: take a card another player played"
    if state.card_of(from_seat) is None:
        return f"seat {from_seat} has no card in this trick"
    if from_seat in state.taken:
        return f"seat {from_seat}'s card was already taken"
    return None


def _take(state: State, seat: int, command: pb.OldmenTakeCard) -> Decided:
    from_seat = command.from_seat
    reason = _why_not_take(state, seat, from_seat)
    if reason:
        raise IllegalCommandError(reason)
    card = state.card_of(from_seat)
    assert card is not None
    event = _card_taken(card)
    event.card_taken.seat = seat
    event.card_taken.from_seat = from_seat
    events = [event]
    after = took(state, seat, from_seat, card)
    if len(state.taken) == 1:  # the second winner took: the rest of the trick is discarded
        gone = {*state.taken, from_seat}
        rest = tuple([c for s, c in state.trick if s not in gone])
        events.append(pb.OldmenEvent(cards_discarded=pb.OldmenCardsDiscarded(cards=[c.to_pb() for c in rest])))
        after = discarded(after, rest)
    return events, after


# --- save or pass -----------------------------------------------------------------------------------


def _may_save(state: State, seat: int, orangutan_id: str) -> bool:
    """Whether ``seat`` may save that orangutan: the game has it, it is in the row and the pool pays for it."""
    orangutan = state.orangutan(orangutan_id)
    return orangutan is not None and orangutan_id in state.row and state.players[seat].can_fund(orangutan)


def _why_not_save(state: State, seat: int, orangutan_id: str) -> str | None:
    """Why ``seat`` may not save that orangutan (``None`` exactly when :func:`_may_save`)."""
    if _may_save(state, seat, orangutan_id):
        return None
    orangutan = state.orangutan(orangutan_id)
    if orangutan is None:
        return f"there is no orangutan {orangutan_id!r} in this game"
    if orangutan_id not in state.row:
        return f"orangutan {orangutan_id} is not in the row"
    return f"your won cards cannot pay for orangutan {orangutan_id}: it needs {orangutan.describe_needs()}"


def _save(state: State, seat: int, command: pb.OldmenSaveOrangutan) -> Decided:
    reason = _why_not_save(state, seat, command.orangutan_id)
    if reason:
        raise IllegalCommandError(reason)
    orangutan = state.orangutan(command.orangutan_id)
    assert orangutan is not None
    spent, tucked = _split_pool(state.players[seat], Counter(orangutan.needs))
    rescued = pb.OldmenOrangutanSaved(
        seat=seat,
        orangutan_id=orangutan.id,
        spent=[c.to_pb() for c in spent],
        tucked=[c.to_pb() for c in tucked],
    )
    after = saved(state, seat, orangutan.id, tuple(spent), tuple(tucked))
    return _after_save_decision(state, pb.OldmenEvent(orangutan_saved=rescued), after)


def _split_pool(player: SeatState, needs: Counter[int]) -> tuple[list[Card], list[Card]]:
    """The needed cards (lowest values of each colour; which copies makes no difference) and the rest."""
    spent: list[Card] = []
    tucked: list[Card] = []
    for card in sorted(player.pool, key=lambda c: (c.colour, c.value)):
        if needs[card.colour] > 0:
            needs[card.colour] -= 1
            spent.append(card)
        else:
            tucked.append(card)
    return spent, tucked


def _decline(state: State, seat: int, command: pb.OldmenDeclineSave) -> Decided:
    event = pb.OldmenEvent(save_declined=pb.OldmenSaveDeclined(seat=seat))
    return _after_save_decision(state, event, declined(state))


def _after_save_decision(state: State, event: pb.OldmenEvent, after: State) -> Decided:
    """After the second winner's decision (``event``, which leads from ``state`` to ``after``): refill the
    row, then end the deal or the match if it is over."""
    events = [event]
    if state.saves_done == 0:
        return events, after
    missing = state.seats + 1 - len(after.row)
    if missing > 0 and after.deck:
        drawn = after.deck[:missing]
        events.append(pb.OldmenEvent(orangutans_revealed=pb.OldmenOrangutansRevealed(orangutan_ids=drawn)))
        after = revealed(after, drawn)
    if after.phase is Phase.SCORING:
        ending, after = _end_of_deal(after)
        events += ending
    return events, after


def _end_of_deal(state: State) -> Decided:
    """Record the deal's scores, then deal again or finish the match (revealing the seed)."""
    finished = pb.OldmenEvent(deal_finished=pb.OldmenDealFinished(deal=state.deal, scores=deal_scores(state)))
    scored = evolve(state, finished)
    if state.deal < state.match_deals:
        dealt = deal_events(state.deal + 1, state.seats, state.seed, state.rules)
        for event in dealt:
            scored = evolve(scored, event)
        return [finished, *dealt], scored
    result = match_result(scored)
    totals = [pb.OldmenSeatScore(seat=s.seat, score=s.score) for s in sorted(result.standings, key=lambda s: s.seat)]
    match = pb.OldmenMatchFinished(totals=totals, winners=result.winners, seed=state.seed, seed_salt=state.seed_salt)
    ended = pb.OldmenEvent(match_finished=match)
    return [finished, ended], evolve(scored, ended)


_DECIDE: dict[str, Callable[[State, int, Any], Decided]] = {
    "play_card": _play,
    "take_card": _take,
    "save_orangutan": _save,
    "decline_save": _decline,
}
