"""Applying events to the state of Libertalia. Never validates: every event was decided.

The first event (game_started) makes a state that carries the rules of the game object folding it; every
later event keeps them (``evolve_replace`` copies every field).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.libertalia.data import MAP, TYPES, LibertaliaRules
from engines.libertalia.state import Card, Effect, Phase, Player, Prompt, State
from engines.libertalia.state import evolve_replace as replace
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["effect_from_pb", "evolve", "with_player"]

_TIMINGS = {
    pb.LIBERTALIA_TIMING_DAY: "day",
    pb.LIBERTALIA_TIMING_DUSK: "dusk",
    pb.LIBERTALIA_TIMING_NIGHT: "night",
    pb.LIBERTALIA_TIMING_ANCHOR: "anchor",
}


def evolve(state: State | None, event: pb.LibertaliaEvent, rules: LibertaliaRules | None = None) -> State:
    """The state after ``event``. A pending choice lasts until the next event (ChoiceMade when answered).
    ``rules``: the rules the game is played by, needed for game_started only (later events keep the
    state's)."""
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        assert rules is not None, "the game's first event is folded with the rules of its game object"
        return _started(event.game_started, rules)
    assert state is not None, "a game's log starts with game_started"
    if state.prompt is not None and kind != "choice_requested":
        state = replace(state, prompt=None)
    assert kind is not None, "every event names its kind"
    return _APPLY[kind](state, getattr(event, kind))


def effect_from_pb(e: pb.LibertaliaEffect) -> Effect:
    """The state's Effect for a LibertaliaEffect message."""
    return Effect(e.seat, e.rank, e.loot - 1, _TIMINGS[e.timing])


def with_player(state: State, seat: int, **changes: Any) -> tuple[Player, ...]:
    """The players with ``seat``'s fields replaced."""
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return tuple(players)


def _started(e: pb.LibertaliaGameStarted, rules: LibertaliaRules) -> State:
    return State(
        seats=e.seats,
        board=e.board,
        sides=tuple(s - pb.LIBERTALIA_SIDE_CALM for s in e.sides),
        rules_version=e.rules_version,
        rules=rules,
        seed=e.seed,
        seed_commitment=e.seed_commitment,
        seed_salt=e.seed_salt,
        midshipman=e.midshipman,
        players=tuple(Player() for _ in range(e.seats)),
        reputation=tuple(e.reputation),
        hidden_scores=e.hidden_scores,
    )


def _bag_filled(state: State, e: pb.LibertaliaBagFilled) -> State:
    return replace(state, bag=state.rules.loot_counts)


def _voyage_started(state: State, e: pb.LibertaliaVoyageStarted) -> State:
    bag = list(state.bag)
    boxes = tuple(tuple(t - 1 for t in box.tokens) for box in e.boxes)
    for box in boxes:
        for token in box:
            bag[token] -= 1
    ranks = tuple(e.ranks)
    players = tuple(
        replace(p, hand=tuple(sorted(p.hand + ranks)), doubloons=p.doubloons + e.income[s], selected=0)
        for s, p in enumerate(state.players)
    )
    return replace(
        state,
        bag=tuple(bag),
        boxes=boxes,
        voyage=e.voyage,
        days=e.days,
        day=1,
        dealt=state.dealt + ranks,
        players=players,
        phase=Phase.SELECT,
        island=(),
    )


def _phase_started(state: State, e: pb.LibertaliaPhaseStarted) -> State:
    phase = Phase(e.phase)
    state = _finish_dusk(state)
    if phase is Phase.SELECT:
        return replace(state, phase=phase, day=e.day, island=())
    return replace(state, phase=phase, nymphs=tuple(e.wind_nymph_seats), turn=-1)


def _selected(state: State, e: pb.LibertaliaCharacterSelected) -> State:
    return replace(state, players=with_player(state, e.seat, selected=e.rank))


def _revealed(state: State, e: pb.LibertaliaCharactersRevealed) -> State:
    players = tuple(
        replace(p, hand=tuple(r for r in p.hand if r != p.selected), selected=0) if p.selected else p
        for p in state.players
    )
    island = tuple(Card(c.seat, c.rank) for c in e.island)
    return replace(state, players=players, island=island, phase=Phase.DAY)


def _acts(state: State, e: pb.LibertaliaCharacterActs) -> State:
    island = tuple(replace(c, day_done=True) if (c.seat, c.rank) == (e.seat, e.rank) else c for c in state.island)
    return replace(state, island=island)


def _choice(state: State, e: pb.LibertaliaChoiceRequested) -> State:
    return replace(state, prompt=Prompt(e.seat, e.kind, e.source_rank, e.ability_rank, e.loot - 1))


def _moved(state: State, e: pb.LibertaliaCharacterMoved) -> State:
    state = _leave(state, e.seat, e.rank, e.from_place)
    return _enter(state, e.seat, e.rank, e.to_place, e.island_index)


def _leave(state: State, seat: int, rank: int, place: int) -> State:
    player = state.players[seat]
    queue = tuple(q for q in state.queue if (q.seat, q.rank) != (seat, rank))
    if place == pb.LIBERTALIA_PLACE_ISLAND:
        island = tuple(c for c in state.island if (c.seat, c.rank) != (seat, rank))
        return replace(state, island=island, queue=queue)
    if place == pb.LIBERTALIA_PLACE_SHIP:
        ship = tuple(r for r in player.ship if r != rank)
        kept = tuple(r for r in player.kept if r != rank)
        return replace(state, players=with_player(state, seat, ship=ship, kept=kept), queue=queue)
    field = "hand" if place == pb.LIBERTALIA_PLACE_HAND else "graveyard"
    remaining = tuple(r for r in getattr(player, field) if r != rank)
    return replace(state, players=with_player(state, seat, **{field: remaining}))


def _enter(state: State, seat: int, rank: int, place: int, index: int) -> State:
    player = state.players[seat]
    if place == pb.LIBERTALIA_PLACE_ISLAND:
        island = (*state.island[:index], Card(seat, rank), *state.island[index:])
        return replace(state, island=island)
    if place == pb.LIBERTALIA_PLACE_SHIP:
        return replace(state, players=with_player(state, seat, ship=(*player.ship, rank)))
    if place == pb.LIBERTALIA_PLACE_HAND:
        return replace(state, players=with_player(state, seat, hand=tuple(sorted((*player.hand, rank)))))
    return replace(state, players=with_player(state, seat, graveyard=(*player.graveyard, rank)))


def _doubloons(state: State, e: pb.LibertaliaDoubloonsChanged) -> State:
    return replace(state, players=with_player(state, e.seat, doubloons=e.doubloons))


def _reputation(state: State, e: pb.LibertaliaReputationMoved) -> State:
    order = list(state.reputation)
    del order[e.from_space]
    order.insert(e.to_space, e.seat)
    players = state.players
    if e.doubloons:
        players = with_player(state, e.seat, doubloons=state.players[e.seat].doubloons + e.doubloons)
    return replace(state, reputation=tuple(order), players=players)


def _loot_moved(state: State, e: pb.LibertaliaLootMoved) -> State:
    loot = e.loot - 1
    if e.from_place == pb.LIBERTALIA_LOOT_PLACE_BOX and e.to_place == pb.LIBERTALIA_LOOT_PLACE_SUPPLY:
        return _box_to_supply(state, loot, e.from_index, e.to_index)
    state = _loot_at(state, loot, -e.count, e.from_place, e.from_index)
    state = _loot_at(state, loot, e.count, e.to_place, e.to_index)
    if e.from_place == pb.LIBERTALIA_LOOT_PLACE_BAG:
        state = replace(state, draws=state.draws + 1)
    return state


def _box_to_supply(state: State, loot: int, day: int, seat: int) -> State:
    """The most frequent move (a token taken from a day box), in one step."""
    box = list(state.boxes[day - 1])
    box.remove(loot)
    boxes = (*state.boxes[: day - 1], tuple(box), *state.boxes[day:])
    supply = list(state.players[seat].supply)
    supply[loot] += 1
    return replace(state, boxes=boxes, players=with_player(state, seat, supply=tuple(supply)))


def _loot_at(state: State, loot: int, delta: int, place: int, index: int) -> State:
    if place == pb.LIBERTALIA_LOOT_PLACE_BAG:
        bag = list(state.bag)
        bag[loot] += delta
        return replace(state, bag=tuple(bag))
    if place == pb.LIBERTALIA_LOOT_PLACE_SUPPLY:
        supply = list(state.players[index].supply)
        supply[loot] += delta
        return replace(state, players=with_player(state, index, supply=tuple(supply)))
    box = list(state.boxes[index - 1])
    for _ in range(abs(delta)):
        if delta > 0:
            box.append(loot)
        else:
            box.remove(loot)
    boxes = (*state.boxes[: index - 1], tuple(box), *state.boxes[index:])
    return replace(state, boxes=boxes)


def _dusk_started(state: State, e: pb.LibertaliaDuskStarted) -> State:
    state = _finish_dusk(state)
    island = list(state.island)
    index = state.island_index(e.seat, e.rank)
    island[index] = replace(island[index], dusk_done=True)
    return replace(state, island=tuple(island), dusk_card=(e.seat, e.rank))


def _finish_dusk(state: State) -> State:
    """The running dusk step ends: its card goes to its owner's ship if it is still on the island."""
    if state.dusk_card is None:
        return state
    seat, rank = state.dusk_card
    index = state.island_index(seat, rank)
    if seat < 0 or index < 0:
        return replace(state, dusk_card=None)
    island = (*state.island[:index], *state.island[index + 1 :])
    players = with_player(state, seat, ship=(*state.players[seat].ship, rank))
    return replace(state, dusk_card=None, island=island, players=players)


def _queued(state: State, e: pb.LibertaliaEffectsQueued) -> State:
    queue = state.queue + tuple(effect_from_pb(x) for x in e.effects)
    turn = e.seat if e.timing in (pb.LIBERTALIA_TIMING_NIGHT, pb.LIBERTALIA_TIMING_ANCHOR) else state.turn
    return replace(state, queue=queue, turn=turn)


def _resolving(state: State, e: pb.LibertaliaEffectResolving) -> State:
    effect = effect_from_pb(e.effect)
    queue = list(state.queue)
    if effect in queue:
        queue.remove(effect)
    return replace(state, queue=tuple(queue))


def _kept(state: State, e: pb.LibertaliaCharacterKept) -> State:
    return replace(state, players=with_player(state, e.seat, kept=(*state.players[e.seat].kept, e.rank)))


def _anchor_reward(state: State, e: pb.LibertaliaAnchorReward) -> State:
    gain = state.players[e.seat].anchor_gain + e.doubloons
    return replace(state, players=with_player(state, e.seat, anchor_gain=gain))


def _scored(state: State, e: pb.LibertaliaVoyageScored) -> State:
    players = list(state.players)
    for score in e.scores:
        players[score.seat] = replace(players[score.seat], doubloons=0, score=score.score, anchor_gain=0)
    return replace(state, players=tuple(players))


def _voyage_ended(state: State, e: pb.LibertaliaVoyageEnded) -> State:
    bag = list(state.bag)
    players = []
    for player in state.players:
        supply = list(player.supply)
        for loot in range(TYPES):
            if loot == MAP and state.stormy(MAP):
                continue
            bag[loot] += supply[loot]
            supply[loot] = 0
        ship = tuple(r for r in player.ship if r in player.kept)
        gone = tuple(r for r in player.ship if r not in player.kept)
        players.append(replace(player, supply=tuple(supply), ship=ship, kept=(), graveyard=player.graveyard + gone))
    for box in state.boxes:
        for token in box:
            bag[token] += 1
    return replace(
        state, bag=tuple(bag), players=tuple(players), boxes=(), island=(), queue=(), turn=-1, dusk_card=None
    )


def _finished(state: State, e: pb.LibertaliaGameFinished) -> State:
    return replace(state, phase=Phase.OVER, winner=e.winner)


_APPLY: dict[str, Callable[[State, Any], State]] = {
    "bag_filled": _bag_filled,
    "voyage_started": _voyage_started,
    "phase_started": _phase_started,
    "character_selected": _selected,
    "characters_revealed": _revealed,
    "character_acts": _acts,
    "choice_requested": _choice,
    "character_moved": _moved,
    "doubloons_changed": _doubloons,
    "reputation_moved": _reputation,
    "loot_moved": _loot_moved,
    "dusk_started": _dusk_started,
    "effects_queued": _queued,
    "effect_resolving": _resolving,
    "character_kept": _kept,
    "anchor_reward": _anchor_reward,
    "voyage_scored": _scored,
    "voyage_ended": _voyage_ended,
    "game_finished": _finished,
    "choice_made": lambda state, e: state,
}
