"""The automatic steps of a round of Verräter: everything between two player decisions.

A :class:`Chain` collects the events a command causes and folds them as it goes, so each step sees the
state the previous one left. ``advance`` runs the automatic phases (reveal, conflict, VP, refill, end of
round, end of game) until a seat must decide again or the game is over.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.prng import Prng
from engines.verraeter.data import EAGLE, ESTATE, ROSE, other_house
from engines.verraeter.evolve import evolve
from engines.verraeter.scoring import final_bonuses, winners_of
from engines.verraeter.state import Phase, State
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["Chain", "advance", "end_round", "fights_for", "pass_packet", "start_draft", "strengths"]

_TRAITOR = pb.VERRAETER_ACTION_TRAITOR
_DIPLOMAT5 = pb.VERRAETER_ACTION_DIPLOMAT5
_DIPLOMAT2 = pb.VERRAETER_ACTION_DIPLOMAT2
_FARMER = pb.VERRAETER_ACTION_FARMER
_STRATEGIST = pb.VERRAETER_ACTION_STRATEGIST
_MERCENARY = pb.VERRAETER_ACTION_MERCENARY
_SCORE_REASON: dict[int, int] = {
    pb.VERRAETER_ACTION_TRAITOR: pb.VERRAETER_SCORE_REASON_TRAITOR,
    pb.VERRAETER_ACTION_STRATEGIST: pb.VERRAETER_SCORE_REASON_STRATEGIST,
}


class Chain:
    """Events caused by one command, with the state after each (``state``)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[pb.VerraeterEvent] = []

    def emit(self, event: pb.VerraeterEvent) -> None:
        """Record ``event`` and fold it into ``state``."""
        self.events.append(event)
        self.state = evolve(self.state, event)


def advance(chain: Chain) -> list[pb.VerraeterEvent]:
    """Run the automatic phases until a seat must decide or the game is over; returns all events."""
    while (step := _STEPS.get(chain.state.phase)) is not None:
        step(chain)
    return chain.events


# --- draft ------------------------------------------------------------------------------------------


def start_draft(chain: Chain) -> None:
    """Shuffle the action cards (the first is the hidden card) and pass the rest to the start player."""
    state = chain.state
    order = Prng(state.seed, "draft", str(state.round)).shuffled(state.actions)
    shuffled = pb.VerraeterActionCardsShuffled(round=state.round, order=order, count=len(order))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    chain.emit(pb.VerraeterEvent(action_cards_shuffled=shuffled))
    pass_packet(chain, state.start_seat, tuple(order[1:]))


def pass_packet(chain: Chain, seat: int, cards: tuple[int, ...]) -> None:
    """Hand the packet to ``seat``; a single card is taken at once (5 seats, no choice left)."""
    if len(cards) == 1:
        taken = pb.VerraeterActionCardTaken(seat=seat, card=cards[0], forced=True)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        chain.emit(pb.VerraeterEvent(packet_passed=pb.VerraeterPacketPassed(seat=seat, cards=cards, count=1)))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        chain.emit(pb.VerraeterEvent(action_card_taken=taken))
        return
    passed = pb.VerraeterPacketPassed(seat=seat, cards=sorted(cards), count=len(cards))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    chain.emit(pb.VerraeterEvent(packet_passed=passed))


# --- reveal and conflict ----------------------------------------------------------------------------


def _reveal(chain: Chain) -> None:
    """Phase 4: reveal, the Traitor switches; if then all share one house, the Diplomat +5 switches (D14)."""
    state = chain.state
    actions = [pb.VerraeterSeatAction(seat=s, card=p.action) for s, p in enumerate(state.players)]  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    chain.emit(pb.VerraeterEvent(actions_revealed=pb.VerraeterActionsRevealed(actions=actions)))
    _switch(chain, chain.state.holder(_TRAITOR), _TRAITOR)
    houses = {p.house for p in chain.state.players}
    if len(houses) == 1:
        _switch(chain, chain.state.holder(_DIPLOMAT5), _DIPLOMAT5)


def _switch(chain: Chain, seat: int, because: int) -> None:
    if seat < 0:
        return
    house = other_house(chain.state.players[seat].house)
    changed = pb.VerraeterAllegianceChanged(seat=seat, house=house, because=because)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    chain.emit(pb.VerraeterEvent(allegiance_changed=changed))


def fights_for(state: State, seat: int) -> int:
    """The house ``seat``'s supply cards count for: its house, or the Mercenary's declared house."""
    if state.mercenary_house and state.players[seat].action == _MERCENARY:
        return state.mercenary_house
    return state.players[seat].house


def strengths(state: State) -> dict[int, int]:
    """Strength per house (rules 3.5): land base + supply played by its fighters + action bonuses."""
    first, second = state.pair(state.battlefield)
    total = {first.house: first.type.base, second.house: second.type.base}
    effects = state.rules.actions
    for seat, player in enumerate(state.players):
        total[fights_for(state, seat)] += sum(player.played)
        effect = effects.get(player.action)
        if effect and effect.strength:
            total[player.house] += effect.strength
    return total


def _resolve(chain: Chain) -> None:
    """Phases 5-6: strengths, winner (none on a tie), land VP, Traitor/Strategist VP, the land flips."""
    state = chain.state
    total = strengths(state)
    eagle, rose = total[EAGLE], total[ROSE]
    winner = EAGLE if eagle > rose else ROSE if rose > eagle else 0
    positions = {state.lands[p].house: p for p in (state.battlefield, (state.battlefield + 1) % state.ring)}
    fighters = [s for s in range(state.seats) if winner and fights_for(state, s) == winner]
    resolved = pb.VerraeterConflictResolved(
        eagle_strength=eagle,
        rose_strength=rose,
        winner=winner,  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        eagle_position=positions[EAGLE],
        rose_position=positions[ROSE],
        winners=len(fighters),
    )
    chain.emit(pb.VerraeterEvent(conflict_resolved=resolved))
    scores: list[pb.VerraeterScore] = []
    if winner:
        lost = state.lands[positions[other_house(winner)]]
        points = lost.type.points(len(fighters))
        scores += [
            pb.VerraeterScore(seat=s, points=points, reason=pb.VERRAETER_SCORE_REASON_LAND) for s in fighters if points
        ]
    effects = state.rules.actions
    for seat, player in enumerate(state.players):
        effect = effects.get(player.action)
        if effect and effect.vp:
            reason = _SCORE_REASON.get(player.action, pb.VERRAETER_SCORE_REASON_UNSPECIFIED)
            scores.append(pb.VerraeterScore(seat=seat, points=effect.vp, reason=reason))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    if scores:
        chain.emit(pb.VerraeterEvent(points_scored=pb.VerraeterPointsScored(scores=scores)))
    if winner:
        flipped = pb.VerraeterLandFlipped(position=positions[other_house(winner)], house=winner)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        chain.emit(pb.VerraeterEvent(land_flipped=flipped))


# --- refill and end of round ------------------------------------------------------------------------


def _refill(chain: Chain) -> None:
    """Phases 8-9: strategy handover, played cards discarded, draws (Farmer, estates, Diplomat +2)."""
    state = chain.state
    strategist = state.holder(_STRATEGIST)
    if strategist >= 0:
        chain.emit(pb.VerraeterEvent(strategist_changed=pb.VerraeterStrategistChanged(seat=strategist)))
    played = [v for p in state.players for v in p.played]
    if played:
        chain.emit(pb.VerraeterEvent(played_cards_discarded=pb.VerraeterPlayedCardsDiscarded(values=played)))
    farmer = state.holder(_FARMER)
    if farmer >= 0:
        _draw(chain, farmer, pb.VERRAETER_DRAW_SOURCE_FARMER, state.rules.actions[_FARMER].draws)
    for seat in (state.seat_after(state.start_seat, i) for i in range(state.seats)):
        house = state.players[seat].house
        estates = sum(1 for land in state.lands if land.owner == seat and land.side == ESTATE and land.house == house)
        if estates:
            _draw(chain, seat, pb.VERRAETER_DRAW_SOURCE_ESTATE, estates)
    diplomat = state.holder(_DIPLOMAT2)
    if diplomat >= 0:
        _draw(chain, diplomat, pb.VERRAETER_DRAW_SOURCE_DIPLOMAT2, state.rules.actions[_DIPLOMAT2].draws)
    limit = state.rules.hand_limit
    over = [s for s, p in enumerate(chain.state.players) if len(p.hand) > limit]
    if over:
        chain.emit(pb.VerraeterEvent(hand_limit_exceeded=pb.VerraeterHandLimitExceeded(seats=over)))
    else:
        end_round(chain)


def _draw(chain: Chain, seat: int, source: int, entitled: int) -> None:
    """Draw up to ``entitled`` cards, within the per-round cap (D12) and the hand limit (D13); reshuffle
    the discard pile when the deck runs out; what cannot be drawn is lost."""
    state = chain.state
    player = state.players[seat]
    allowed = min(entitled, max(0, state.rules.hand_limit - len(player.hand)))
    if state.option("refill_cap") == "true":
        allowed = min(allowed, max(0, state.rules.refill_cap - player.drawn))
    while True:
        take = min(allowed, len(chain.state.deck))
        allowed -= take
        entitled -= take
        done = not allowed or not chain.state.discard
        values = chain.state.deck[:take]
        lost = entitled if done else 0
        drawn = pb.VerraeterCardsDrawn(seat=seat, source=source, values=values, count=take, lost=lost)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        if take or done:
            chain.emit(pb.VerraeterEvent(cards_drawn=drawn))
        if done:
            return
        _reshuffle(chain)


def _reshuffle(chain: Chain) -> None:
    state = chain.state
    number = state.reshuffles + 1
    order = Prng(state.seed, "reshuffle", str(number)).shuffled(sorted(state.discard))
    reshuffled = pb.VerraeterDeckReshuffled(number=number, order=order, count=len(order))
    chain.emit(pb.VerraeterEvent(deck_reshuffled=reshuffled))


def end_round(chain: Chain) -> None:
    """Phase 10: the start player card passes left; the game ends after the last round or once every land
    belongs to one house (D18); trading posts then score (D20) and the seed is revealed."""
    state = chain.state
    ended = pb.VerraeterRoundEnded(round=state.round, start_seat=state.seat_after(state.start_seat))
    chain.emit(pb.VerraeterEvent(round_ended=ended))
    one_house = len({land.house for land in state.lands}) == 1
    if state.round < state.rounds and not one_house:
        return
    bonuses = final_bonuses(chain.state)
    totals = [p.vp for p in chain.state.players]
    for bonus in bonuses:
        totals[bonus.seat] += bonus.points
    finished = pb.VerraeterGameFinished(
        bonuses=bonuses,
        totals=totals,
        winners=winners_of(totals),
        seed=state.seed,
        seed_salt=state.seed_salt,
        early=state.round < state.rounds,
    )
    chain.emit(pb.VerraeterEvent(game_finished=finished))


_STEPS: dict[Phase, Callable[[Chain], None]] = {
    Phase.REVEAL: _reveal,
    Phase.RESOLVE: _resolve,
    Phase.REFILL: _refill,
    Phase.ROUND_END: end_round,
}
