"""The course of a game: after every command the engine runs on until a seat must act (rules 3 and 4).

:func:`advance` runs the day pass, the dusk pass, the night and the end of a voyage, asking for each
choice the rules give a player (it then stops) and starting the next day, voyage or the end of the game.

Two rule flags of the version (``state.rules``, see :data:`engines.libertalia.data.FLAGS`) select how the
night and the anchor go: ``turns`` whether every seat's abilities become due at once or seat by seat
(:data:`_TURNS`), ``anchor`` whether the Witches return as the anchor begins and only the anchor choices
are queued (``netted``) or every order-dependent anchor ability is (``ordered``, :data:`_ANCHOR_DUE`).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.libertalia.abilities.anchor import anchor_choices, anchor_effects, witch_returns
from engines.libertalia.abilities.day import DAY_ABILITIES
from engines.libertalia.abilities.loot import queue_dusk_effects
from engines.libertalia.abilities.night import WIND_NYMPH, WITCH
from engines.libertalia.abilities.order import next_effect
from engines.libertalia.abilities.prompting import ask
from engines.libertalia.data import (
    ANCHOR,
    ANCHOR_NETTED,
    ANCHOR_ORDERED,
    DAY,
    MIDSHIPMAN,
    NIGHT,
    RELIC,
    TURNS_SEAT_BY_SEAT,
    TURNS_TOGETHER,
)
from engines.libertalia.ops import BAG, BOX, HAND, SHIP, Run, move_card, move_loot, queue_effects
from engines.libertalia.scoring import finish_events, voyage_scores
from engines.libertalia.setup import voyage_event
from engines.libertalia.state import Card, Effect, Phase, Prompt, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["advance", "selecting_seats"]


def selecting_seats(state: State) -> frozenset[int]:
    """In the selection: the seats with cards in hand that have not selected yet."""
    return frozenset(s for s, p in enumerate(state.players) if p.hand and not p.selected)


def advance(run: Run, stop_at: Phase | None = None) -> None:
    """Run the game on until a choice or a selection is due, or the game is over (or, for tests of one
    part of a day, until phase ``stop_at`` begins)."""
    while True:
        state = run.state
        if state.prompt is not None or state.phase in (Phase.OVER, stop_at):
            return
        if state.phase is Phase.SELECT:
            if selecting_seats(state):
                return
            _reveal(run)
        elif state.queue:
            next_effect(run)
        else:
            _STEPS[state.phase](run)


def _reveal(run: Run) -> None:
    state = run.state
    cards = [Card(s, p.selected) for s, p in enumerate(state.players) if p.selected]
    if state.midshipman:
        cards.append(Card(-1, MIDSHIPMAN))
    order_key = state.rules.order_key
    cards.sort(key=lambda c: (order_key(c.rank), state.space(c.seat) if c.seat >= 0 else -1))
    island = [pb.LibertaliaIslandCard(seat=c.seat, rank=c.rank) for c in cards]
    run.emit(pb.LibertaliaEvent(characters_revealed=pb.LibertaliaCharactersRevealed(island=island)))


def _phase(run: Run, phase: Phase, day: int = 0, nymphs: tuple[int, ...] = ()) -> None:
    started = pb.LibertaliaPhaseStarted(phase=phase.value, day=day, wind_nymph_seats=nymphs)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    run.emit(pb.LibertaliaEvent(phase_started=started))


def _day_step(run: Run) -> None:
    day = run.state.rules.timed[DAY]
    card = next((c for c in run.state.island if not c.day_done and c.seat >= 0 and c.rank in day), None)
    if card is None:  # cards without a daytime ability have nothing to do in the day pass
        _phase(run, Phase.DUSK)
        return
    run.emit(pb.LibertaliaEvent(character_acts=pb.LibertaliaCharacterActs(seat=card.seat, rank=card.rank)))
    DAY_ABILITIES[card.rank](run, card.seat, card.rank, card.rank)


def _dusk_step(run: Run) -> None:
    state = run.state
    card = next((c for c in reversed(state.island) if not c.dusk_done), None)
    if card is None:
        _end_dusk(run)
        return
    run.emit(pb.LibertaliaEvent(dusk_started=pb.LibertaliaDuskStarted(seat=card.seat, rank=card.rank)))
    if card.seat < 0:
        _midshipman(run)
    elif card.rank == 5 or not run.state.pool:  # the Cabin Boy takes no loot
        queue_dusk_effects(run, card.seat, card.rank, -1)
    else:
        ask(run, Prompt(card.seat, pb.LIBERTALIA_CHOICE_KIND_DUSK_TAKE, card.rank, card.rank))


def _midshipman(run: Run) -> None:
    state = run.state
    index = state.island_index(-1, MIDSHIPMAN)
    if index > 0 and state.pool:
        other = 1 - state.island[index - 1].seat
        ask(run, Prompt(other, pb.LIBERTALIA_CHOICE_KIND_MIDSHIPMAN_RETURN, MIDSHIPMAN, MIDSHIPMAN))


def _end_dusk(run: Run) -> None:
    state = run.state
    for loot in sorted(set(state.pool)):
        move_loot(run, loot, state.pool.count(loot), BOX, state.day, BAG, 0)
    finishing = run.state.dusk_card  # still on the island until the night starts (then in its ship)
    nymphs = tuple(
        s
        for s, p in enumerate(run.state.players)
        if WIND_NYMPH in p.ship or (finishing == (s, WIND_NYMPH) and run.state.island_index(s, WIND_NYMPH) >= 0)
    )
    _phase(run, Phase.NIGHT, nymphs=nymphs)


def _night_step(run: Run) -> None:
    state = run.state
    if _TURNS[state.rules.turns](run, NIGHT, _night_effects):
        return
    if state.day < state.days:
        _phase(run, Phase.SELECT, day=state.day + 1)
    else:
        _phase(run, Phase.ANCHOR)


Due = Callable[[State, int], list[Effect]]


def _turn_of_next_seat(run: Run, timing: str, due: Due) -> bool:
    """``turns=seat_by_seat``: queue the abilities of the next seat after ``state.turn`` (the last seat
    whose abilities were queued; -1 before the first) that has abilities due; False when every seat has
    had its turn. At night and anchor each seat resolves its abilities in turn, in seat order (night: rule
    3.5.3, the order makes no difference; anchor: the rules are silent, and this order is the engine's
    decision)."""
    state = run.state
    seat = next((s for s in range(state.turn + 1, state.seats) if due(state, s)), None)
    if seat is None:
        return False
    queue_effects(run, seat, timing, due(state, seat))
    return True


def _turn_of_every_seat(run: Run, timing: str, due: Due) -> bool:
    """``turns=together``: once per phase (``state.turn`` is -1 until then), queue every seat's abilities
    in one event that names the last seat; they resolve seat by seat, in seat order. False when they were
    queued already or none is due."""
    state = run.state
    effects = [e for seat in range(state.seats) for e in due(state, seat)] if state.turn < 0 else []
    if not effects:
        return False
    queue_effects(run, state.seats - 1, timing, effects)
    return True


_TURNS: dict[str, Callable[[Run, str, Due], bool]] = {
    TURNS_SEAT_BY_SEAT: _turn_of_next_seat,
    TURNS_TOGETHER: _turn_of_every_seat,
}


def _night_effects(state: State, seat: int) -> list[Effect]:
    """The night abilities of ``seat``: its ship characters' and, Stormy, its relics'."""
    player = state.players[seat]
    night = state.rules.timed[NIGHT]
    effects = [Effect(seat, r, -1, NIGHT) for r in player.ship if r in night]
    if player.supply[RELIC] and state.stormy(RELIC):
        effects.append(Effect(seat, 0, RELIC, NIGHT))
    return effects


def _anchor_step(run: Run) -> None:
    state = run.state
    if state.rules.anchor == ANCHOR_NETTED and state.turn < 0:
        _witches_return(run)
    if not _TURNS[state.rules.turns](run, ANCHOR, _ANCHOR_DUE[state.rules.anchor]):
        _end_voyage(run)


def _witches_return(run: Run) -> None:
    """``anchor=netted``: as the anchor begins, each seat's Witch returns to its hand if she is the only
    character with a night ability in its ship (before any hook choice, rule 4.1)."""
    for seat in range(run.state.seats):
        if witch_returns(run.state, seat):
            move_card(run, seat, WITCH, SHIP, HAND)


#: The anchor abilities of a seat that are queued, by the flag ``anchor``: the choices only (the rest is
#: netted at scoring), or every ability whose value depends on the order.
_ANCHOR_DUE: dict[str, Due] = {ANCHOR_NETTED: anchor_choices, ANCHOR_ORDERED: anchor_effects}


def _end_voyage(run: Run) -> None:
    state = run.state
    scored = pb.LibertaliaVoyageScored(
        voyage=state.voyage, scores=voyage_scores(state), hidden_scores=state.hidden_scores
    )
    run.emit(pb.LibertaliaEvent(voyage_scored=scored))
    run.emit(pb.LibertaliaEvent(voyage_ended=pb.LibertaliaVoyageEnded(voyage=state.voyage)))
    if run.state.voyage < 3:
        after = run.state
        started = voyage_event(
            after.rules, after.seed, after.voyage + 1, after.seats, after.bag, after.dealt, after.reputation
        )
        run.emit(pb.LibertaliaEvent(voyage_started=started))
    else:
        for event in finish_events(run.state):
            run.emit(event)


_STEPS: dict[Phase, Callable[[Run], None]] = {
    Phase.DAY: _day_step,
    Phase.DUSK: _dusk_step,
    Phase.NIGHT: _night_step,
    Phase.ANCHOR: _anchor_step,
}
