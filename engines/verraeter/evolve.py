"""Applying events to the state of Verräter. Never validates: every event was decided.

The first event, ``game_started``, gives the new state the rules of the game object that folds it
(:meth:`engines.verraeter.game.Verraeter.evolve` passes them, :func:`started`); every later state keeps them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engines.verraeter.data import LandType, VerraeterRules
from engines.verraeter.state import Conflict, Land, Phase, Player, State, replace
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["evolve", "remove_values", "started"]

_BUILDER = pb.VERRAETER_ACTION_BUILDER
_MERCENARY = pb.VERRAETER_ACTION_MERCENARY


def evolve(state: State | None, event: pb.VerraeterEvent) -> State:
    """The state after ``event`` (the first event, ``game_started``, goes to :func:`started` with the rules
    of the game object; one folded onto a state starts a new game under that state's rules)."""
    kind = event.WhichOneof("kind")
    assert state is not None, "a game's log starts with game_started"
    return _APPLY[kind](state, getattr(event, kind))  # type: ignore[index,arg-type]  # kind is set in every logged event


def remove_values(hand: tuple[int, ...], values: Any) -> tuple[int, ...] | None:
    """``hand`` without one card of each value in ``values`` (a multiset), or ``None`` if it lacks one."""
    rest = list(hand)
    for value in values:
        if value not in rest:
            return None
        rest.remove(value)
    return tuple(rest)


def started(e: pb.VerraeterGameStarted, rules: VerraeterRules) -> State:
    """GameStarted: a new game under ``rules`` (those of the game object folding the log), with the land
    types, action cards and rounds the event lists (chosen from those rules by the seat count and options)."""
    return State(
        rules=rules,
        seats=e.seats,
        rounds=e.rounds,
        rules_version=e.rules_version,
        seed=e.seed,
        seed_commitment=e.seed_commitment,
        seed_salt=e.seed_salt,
        options=tuple((o.name, o.value) for o in e.options),
        land_types=_land_types(e.land_types, rules),
        actions=tuple(e.actions),
    )


def _land_types(messages: Iterable[pb.VerraeterLandType], rules: VerraeterRules) -> tuple[LandType, ...]:
    """The land types ``messages`` describe: the rules' own instances where the rules hold an equal type, so
    the states of every game share them instead of each holding copies."""
    own = {kind: kind for kind in rules.land_types}
    return tuple(own.get(kind, kind) for kind in map(LandType.from_pb, messages))


def _players(state: State, seat: int, **changes: Any) -> tuple[Player, ...]:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return tuple(players)


def _lands(state: State, position: int, **changes: Any) -> tuple[Land, ...]:
    lands = list(state.lands)
    lands[position] = replace(lands[position], **changes)
    return tuple(lands)


def _restarted(state: State, e: pb.VerraeterGameStarted) -> State:
    return started(e, state.rules)


def _seats_assigned(state: State, e: pb.VerraeterSeatsAssigned) -> State:
    reserve = state.rules.buildings_per_player
    players = tuple(Player(house=h, reserve=reserve) for h in e.houses)
    return replace(state, players=players, start_seat=e.start_seat, strategist=e.strategist_seat)


def _lands_laid(state: State, e: pb.VerraeterLandsLaid) -> State:
    types = {t.id: t for t in state.land_types}
    return replace(state, lands=tuple(Land(land.card_id, types[land.type], land.house) for land in e.lands))


def _supply_shuffled(state: State, e: pb.VerraeterSupplyShuffled) -> State:
    return replace(state, deck=tuple(e.order))


def _hand_dealt(state: State, e: pb.VerraeterHandDealt) -> State:
    return replace(state, players=_players(state, e.seat, hand=tuple(sorted(e.values))))


def _building_placed(state: State, e: pb.VerraeterBuildingPlaced) -> State:
    players = _players(state, e.seat, reserve=state.players[e.seat].reserve - 1)
    lands = _lands(state, e.position, owner=e.seat, side=e.side)
    if state.phase is Phase.SETUP_ESTATES:
        placed = state.setup_placed + 1
        phase = Phase.BATTLEFIELD if placed == state.seats else Phase.SETUP_ESTATES
        return replace(state, players=players, lands=lands, setup_placed=placed, phase=phase)
    return replace(state, players=players, lands=lands, phase=Phase.REFILL)


def _battlefield_chosen(state: State, e: pb.VerraeterBattlefieldChosen) -> State:
    return replace(state, battlefield=e.position, phase=Phase.DRAFT, conflict=None, mercenary_house=0)


def _action_cards_shuffled(state: State, e: pb.VerraeterActionCardsShuffled) -> State:
    return replace(state, action_order=tuple(e.order))


def _packet_passed(state: State, e: pb.VerraeterPacketPassed) -> State:
    return replace(state, packet=tuple(e.cards), packet_seat=e.seat)


def _action_card_taken(state: State, e: pb.VerraeterActionCardTaken) -> State:
    packet = list(state.packet)
    packet.remove(e.card)
    players = _players(state, e.seat, action=e.card)
    if all(p.action for p in players):
        return replace(
            state,
            players=players,
            packet=(),
            packet_seat=-1,
            leftovers=tuple(packet),
            phase=Phase.SUPPLY,
            supply_turn=0,
        )
    return replace(state, players=players, packet=tuple(packet), packet_seat=-1)


def _supply_played(state: State, e: pb.VerraeterSupplyPlayed) -> State:
    player = state.players[e.seat]
    hand = remove_values(player.hand, e.values) or ()
    players = _players(state, e.seat, hand=hand, played=tuple(sorted(e.values)), has_played=True)
    turn = state.supply_turn + 1
    return replace(
        state, players=players, supply_turn=turn, phase=Phase.REVEAL if turn == state.seats else Phase.SUPPLY
    )


def _actions_revealed(state: State, e: pb.VerraeterActionsRevealed) -> State:
    phase = Phase.MERCENARY if state.holder(_MERCENARY) >= 0 else Phase.RESOLVE
    return replace(state, phase=phase)


def _allegiance_changed(state: State, e: pb.VerraeterAllegianceChanged) -> State:
    return replace(state, players=_players(state, e.seat, house=e.house))


def _mercenary_declared(state: State, e: pb.VerraeterMercenaryDeclared) -> State:
    return replace(state, mercenary_house=e.house, phase=Phase.RESOLVE)


def _conflict_resolved(state: State, e: pb.VerraeterConflictResolved) -> State:
    conflict = Conflict(e.eagle_strength, e.rose_strength, e.winner, e.eagle_position, e.rose_position, e.winners)
    phase = Phase.BUILD if state.holder(_BUILDER) >= 0 else Phase.REFILL
    return replace(state, conflict=conflict, phase=phase)


def _points_scored(state: State, e: pb.VerraeterPointsScored) -> State:
    players = list(state.players)
    for score in e.scores:
        players[score.seat] = replace(players[score.seat], vp=players[score.seat].vp + score.points)
    return replace(state, players=tuple(players))


def _land_flipped(state: State, e: pb.VerraeterLandFlipped) -> State:
    return replace(state, lands=_lands(state, e.position, house=e.house))


def _building_flipped(state: State, e: pb.VerraeterBuildingFlipped) -> State:
    return replace(state, lands=_lands(state, e.position, side=e.side), phase=Phase.REFILL)


def _build_passed(state: State, e: pb.VerraeterBuildPassed) -> State:
    return replace(state, phase=Phase.REFILL)


def _strategist_changed(state: State, e: pb.VerraeterStrategistChanged) -> State:
    return replace(state, strategist=e.seat)


def _played_cards_discarded(state: State, e: pb.VerraeterPlayedCardsDiscarded) -> State:
    players = tuple(replace(p, played=()) for p in state.players)
    return replace(state, players=players, discard=state.discard + tuple(e.values))


def _deck_reshuffled(state: State, e: pb.VerraeterDeckReshuffled) -> State:
    return replace(state, deck=state.deck + tuple(e.order), discard=(), reshuffles=e.number)


def _cards_drawn(state: State, e: pb.VerraeterCardsDrawn) -> State:
    player = state.players[e.seat]
    hand = tuple(sorted(player.hand + tuple(e.values)))
    players = _players(state, e.seat, hand=hand, drawn=player.drawn + e.count)
    return replace(state, players=players, deck=state.deck[e.count :])


def _hand_limit_exceeded(state: State, e: pb.VerraeterHandLimitExceeded) -> State:
    return replace(state, discarding=tuple(e.seats), phase=Phase.DISCARD)


def _cards_discarded(state: State, e: pb.VerraeterCardsDiscarded) -> State:
    hand = remove_values(state.players[e.seat].hand, e.values) or ()
    discarding = tuple(s for s in state.discarding if s != e.seat)
    return replace(
        state,
        players=_players(state, e.seat, hand=hand),
        discard=state.discard + tuple(e.values),
        discarding=discarding,
        phase=Phase.DISCARD if discarding else Phase.ROUND_END,
    )


def _round_ended(state: State, e: pb.VerraeterRoundEnded) -> State:
    """Action cards go back, per-round marks are cleared, the start player card has passed left."""
    players = tuple(replace(p, action=0, drawn=0, played=(), has_played=False) for p in state.players)
    return replace(
        state,
        players=players,
        round=min(e.round + 1, state.rounds),
        start_seat=e.start_seat,
        phase=Phase.BATTLEFIELD,
        battlefield=-1,
        action_order=(),
        packet=(),
        packet_seat=-1,
        leftovers=(),
        supply_turn=0,
    )


def _game_finished(state: State, e: pb.VerraeterGameFinished) -> State:
    players = list(state.players)
    for bonus in e.bonuses:
        players[bonus.seat] = replace(players[bonus.seat], vp=players[bonus.seat].vp + bonus.points)
    return replace(state, players=tuple(players), phase=Phase.OVER, winners=tuple(e.winners), early=e.early)


_APPLY: dict[str, Callable[[State, Any], State]] = {
    "game_started": _restarted,
    "seats_assigned": _seats_assigned,
    "lands_laid": _lands_laid,
    "supply_shuffled": _supply_shuffled,
    "hand_dealt": _hand_dealt,
    "building_placed": _building_placed,
    "battlefield_chosen": _battlefield_chosen,
    "action_cards_shuffled": _action_cards_shuffled,
    "packet_passed": _packet_passed,
    "action_card_taken": _action_card_taken,
    "supply_played": _supply_played,
    "actions_revealed": _actions_revealed,
    "allegiance_changed": _allegiance_changed,
    "mercenary_declared": _mercenary_declared,
    "conflict_resolved": _conflict_resolved,
    "points_scored": _points_scored,
    "land_flipped": _land_flipped,
    "building_flipped": _building_flipped,
    "build_passed": _build_passed,
    "strategist_changed": _strategist_changed,
    "played_cards_discarded": _played_cards_discarded,
    "deck_reshuffled": _deck_reshuffled,
    "cards_drawn": _cards_drawn,
    "hand_limit_exceeded": _hand_limit_exceeded,
    "cards_discarded": _cards_discarded,
    "round_ended": _round_ended,
    "game_finished": _game_finished,
}
