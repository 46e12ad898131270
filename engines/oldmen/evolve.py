"""Applying events to the state of Old Men of the Forest. Never validates: every event was decided.

Each event of a round has its transition here as a function of plain values (``played``, ``ranked``, ...):
``evolve`` reads an event's values and calls it, and ``rules`` calls it with the values it puts in the
event it decides, so deciding a command yields the state its events lead to without folding them again.

The first event, ``game_started``, gives the new state the rules of the game object that folds it
(:meth:`engines.oldmen.game.OldMen.evolve` passes them); every later state keeps them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engines.oldmen.data import Card, OldmenRules
from engines.oldmen.state import Phase, Saved, SeatState, State, evolve_replace
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["declined", "discarded", "evolve", "played", "ranked", "revealed", "saved", "started", "took"]


def evolve(state: State | None, event: pb.OldmenEvent) -> State:
    """The state after ``event`` (the first event, ``game_started``, goes to :func:`started` with the rules
    of the game object; one folded onto a state starts a new game under that state's rules)."""
    kind = event.WhichOneof("kind")
    assert state is not None and kind is not None, "a game's log starts with game_started; every event has a kind"
    return _APPLY[kind](state, getattr(event, kind))


def started(e: pb.OldmenGameStarted, rules: OldmenRules) -> State:
    """GameStarted: a new game under ``rules`` (those of the game object folding the log). The orangutan
    table the event lists is the one of ``rules``, which the state reads."""
    return State(
        rules=rules,
        seats=e.seats,
        match_deals=e.match_deals,
        rules_version=e.rules_version,
        seed=e.seed,
        seed_commitment=e.seed_commitment,
        seed_salt=e.seed_salt,
        players=tuple(SeatState() for _ in range(e.seats)),
    )


def _with_player(state: State, seat: int, **changes: Any) -> tuple[SeatState, ...]:
    players = list(state.players)
    players[seat] = evolve_replace(players[seat], **changes)
    return tuple(players)


def _start_player_drawn(state: State, e: pb.OldmenStartPlayerDrawn) -> State:
    """A new deal begins: everything but the match totals is reset."""
    players = tuple(SeatState(match_score=p.match_score, match_vps=p.match_vps) for p in state.players)
    return evolve_replace(
        state,
        players=players,
        deal=e.deal,
        round=1,
        leader=e.start_seat,
        phase=Phase.PLAY,
        trick=(),
        first=-1,
        second=-1,
        taken=(),
        saves_done=0,
        row=(),
        deck=(),
        discard=(),
    )


def _hand_dealt(state: State, e: pb.OldmenHandDealt) -> State:
    hand = tuple(Card.from_pb(c) for c in e.cards)
    return evolve_replace(state, players=_with_player(state, e.seat, hand=hand))


def _deck_shuffled(state: State, e: pb.OldmenOrangutanDeckShuffled) -> State:
    return evolve_replace(state, deck=tuple(e.order))


def revealed(state: State, orangutan_ids: tuple[str, ...]) -> State:
    """OrangutansRevealed: those cards (the top of the deck) are added to the row."""
    return evolve_replace(state, row=state.row + orangutan_ids, deck=state.deck[len(orangutan_ids) :])


def played(state: State, seat: int, card: Card) -> State:
    """CardPlayed: ``card`` leaves ``seat``'s hand for the trick."""
    hand = tuple([c for c in state.players[seat].hand if c != card])
    return evolve_replace(state, players=_with_player(state, seat, hand=hand), trick=(*state.trick, (seat, card)))


def ranked(state: State, first: int, second: int) -> State:
    """TrickRanked: the two winners are known; they take cards."""
    return evolve_replace(state, phase=Phase.TAKE, first=first, second=second, taken=())


def took(state: State, seat: int, from_seat: int, card: Card) -> State:
    """CardTaken: ``seat`` adds ``from_seat``'s ``card`` to its pool."""
    pool = (*state.players[seat].pool, card)
    return evolve_replace(state, players=_with_player(state, seat, pool=pool), taken=(*state.taken, from_seat))


def discarded(state: State, cards: tuple[Card, ...]) -> State:
    """CardsDiscarded: the rest of the trick is discarded; the winners decide on saving."""
    return evolve_replace(state, discard=state.discard + cards, phase=Phase.SAVE, saves_done=0)


def saved(state: State, seat: int, orangutan_id: str, spent: tuple[Card, ...], tucked: tuple[Card, ...]) -> State:
    """OrangutanSaved: ``seat`` saves that orangutan, spending ``spent`` and tucking ``tucked`` (its pool)."""
    orangutan = state.orangutan(orangutan_id)
    assert orangutan is not None
    player = state.players[seat]
    rescued = (*player.saved, Saved(orangutan, tucked))
    players = _with_player(state, seat, pool=(), saved=rescued)
    row = tuple([o for o in state.row if o != orangutan_id])
    return _save_decided(evolve_replace(state, players=players, row=row, discard=state.discard + spent))


def declined(state: State) -> State:
    """SaveDeclined: the acting winner passes."""
    return _save_decided(state)


def _cards(cards: Iterable[pb.OldmenCard]) -> tuple[Card, ...]:
    return tuple([Card.from_pb(c) for c in cards])


def _revealed(state: State, e: pb.OldmenOrangutansRevealed) -> State:
    return revealed(state, tuple(e.orangutan_ids))


def _card_played(state: State, e: pb.OldmenCardPlayed) -> State:
    return played(state, e.seat, Card.from_pb(e.card))


def _trick_ranked(state: State, e: pb.OldmenTrickRanked) -> State:
    return ranked(state, e.first_seat, e.second_seat)


def _card_taken(state: State, e: pb.OldmenCardTaken) -> State:
    return took(state, e.seat, e.from_seat, Card.from_pb(e.card))


def _discarded(state: State, e: pb.OldmenCardsDiscarded) -> State:
    return discarded(state, _cards(e.cards))


def _saved(state: State, e: pb.OldmenOrangutanSaved) -> State:
    return saved(state, e.seat, e.orangutan_id, _cards(e.spent), _cards(e.tucked))


def _declined(state: State, e: pb.OldmenSaveDeclined) -> State:
    return declined(state)


def _save_decided(state: State) -> State:
    """After a winner's save or pass: the second winner is due, or the round is over."""
    if state.saves_done == 0:
        return evolve_replace(state, saves_done=1)
    next_phase = Phase.SCORING if state.is_last_round else Phase.PLAY
    return evolve_replace(
        state,
        phase=next_phase,
        round=state.round + (0 if state.is_last_round else 1),
        leader=state.first,
        trick=(),
        first=-1,
        second=-1,
        taken=(),
        saves_done=0,
    )


def _deal_finished(state: State, e: pb.OldmenDealFinished) -> State:
    players = tuple(
        evolve_replace(
            p,
            match_score=p.match_score + p.score(state.rules),
            match_vps=p.match_vps + tuple(s.orangutan.vp for s in p.saved),
        )
        for p in state.players
    )
    return evolve_replace(state, players=players)


def _match_finished(state: State, e: pb.OldmenMatchFinished) -> State:
    return evolve_replace(state, phase=Phase.OVER, winners=tuple(e.winners))


def _restarted(state: State, e: pb.OldmenGameStarted) -> State:
    return started(e, state.rules)


_APPLY: dict[str, Callable[[State, Any], State]] = {
    "game_started": _restarted,
    "start_player_drawn": _start_player_drawn,
    "hand_dealt": _hand_dealt,
    "orangutan_deck_shuffled": _deck_shuffled,
    "orangutans_revealed": _revealed,
    "card_played": _card_played,
    "trick_ranked": _trick_ranked,
    "card_taken": _card_taken,
    "cards_discarded": _discarded,
    "orangutan_saved": _saved,
    "save_declined": _declined,
    "deal_finished": _deal_finished,
    "match_finished": _match_finished,
}
