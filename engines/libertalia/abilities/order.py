"""Due abilities (dusk, night, anchor): which resolves next, and resolving one.

When two or more different abilities of a seat are due and their order can matter, the seat chooses
(ChooseAbility). Only pure gains commute for sure (a loss stops at 0, a discard can remove a card before
its own ability), so the engine asks unless every due ability is a pure gain. Anchor choices never need an
order: anchor doubloons are netted (rule 4.1).
"""

from __future__ import annotations

from engines.libertalia.abilities.loot import ANCHOR_CHOICES, dusk_effect
from engines.libertalia.abilities.night import NIGHT_ABILITIES, relic_night
from engines.libertalia.abilities.prompting import Option, PromptSpec, ask
from engines.libertalia.data import ANCHOR, BARREL, DUSK, NIGHT
from engines.libertalia.ops import Run, effect_pb
from engines.libertalia.state import Effect, Prompt, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["ORDER_PROMPTS", "next_effect", "resolve_effect"]

_PURE_GAINS = {(DUSK, 10), (DUSK, 28), (NIGHT, 8), (NIGHT, 22), (NIGHT, 28)}


def _is_gain(state: State, effect: Effect) -> bool:
    if effect.rank:
        return (effect.timing, effect.rank) in _PURE_GAINS
    return effect.timing == DUSK and effect.loot == BARREL and not state.stormy(BARREL)


def _distinct(state: State) -> list[Effect]:
    """The different due abilities of the seat whose turn it is (the first due ability's owner)."""
    seat = state.queue[0].seat
    return list(dict.fromkeys(e for e in state.queue if e.seat == seat))


def next_effect(run: Run) -> None:
    """Resolve the next due ability, or ask its owner which one first."""
    state = run.state
    first = state.queue[0]
    distinct = _distinct(state)
    if len(distinct) > 1 and first.timing != ANCHOR and not all(_is_gain(state, e) for e in distinct):
        ask(run, Prompt(first.seat, pb.LIBERTALIA_CHOICE_KIND_ORDER))
    else:
        resolve_effect(run, first)


def resolve_effect(run: Run, effect: Effect) -> None:
    """Resolve one due ability (it leaves the queue first)."""
    run.emit(pb.LibertaliaEvent(effect_resolving=pb.LibertaliaEffectResolving(effect=effect_pb(effect))))
    seat = effect.seat
    if effect.timing == DUSK:
        dusk_effect(run, effect)
    elif effect.timing == NIGHT:
        if effect.rank:
            NIGHT_ABILITIES[effect.rank](run, seat, effect.rank, effect.rank)
        else:
            relic_night(run, seat)
    else:
        kind = ANCHOR_CHOICES[(effect.loot, run.state.stormy(effect.loot))]
        ask(run, Prompt(seat, kind, loot=effect.loot))


def _order_options(state: State, p: Prompt) -> list[Option]:
    return [("choose_ability", (e.rank, -1 if e.rank else e.loot)) for e in _distinct(state)]


def _order_resolve(run: Run, p: Prompt, option: Option) -> None:
    rank, loot = option[1]
    for effect in run.state.queue:
        if effect.rank == rank and (rank or effect.loot == loot):
            resolve_effect(run, effect)
            return


ORDER_PROMPTS: dict[int, PromptSpec] = {
    pb.LIBERTALIA_CHOICE_KIND_ORDER: PromptSpec(
        "choose which of your due abilities resolves next", _order_options, _order_resolve
    ),
}
