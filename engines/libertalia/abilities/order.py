"""Due abilities (dusk, night, anchor): which resolves next, and resolving one.

When two or more different abilities of a seat are due and their order can matter, the seat chooses
(ChooseAbility). At dusk and night only pure gains commute for sure (a loss stops at 0, a discard can
remove a card before its own ability), so the engine asks unless every due ability is a pure gain.

At anchor doubloons are netted (rule 4.1), so only what an anchor ability changes on the board can make
the order matter: the Witch's return to hand changes the ship the First Mate counts, and a Stormy amulet's
reputation move changes the space a Stormy barrel reads. Those two are resolved when the seat chooses
(their value is recorded then, LibertaliaAnchorReward); every other anchor ability reads nothing another
one changes and is netted at scoring. A hook resolves after the Witch's return (rule 4.1 [P]), so it is
not offered while her return is due. Seats resolve their anchor abilities one after another in seat
order (the rules are silent across seats; the engine's decision, in the README): a barrel is read on the
track as the earlier seats' amulets left it. That is the flag ``anchor=ordered`` (libertalia/2); with
``anchor=netted`` (libertalia/1) only the anchor choices are queued (:mod:`.anchor`), none of which reads
what another changes, so they resolve as queued and the seat is never asked.
"""

from __future__ import annotations

from engines.libertalia.abilities.anchor import FIRST_MATE, WITCH, resolve_anchor
from engines.libertalia.abilities.loot import dusk_effect
from engines.libertalia.abilities.night import NIGHT_ABILITIES, relic_night
from engines.libertalia.abilities.prompting import Option, PromptSpec, ask
from engines.libertalia.data import AMULET, ANCHOR, BARREL, DUSK, HOOK, NIGHT
from engines.libertalia.ops import Run, effect_pb
from engines.libertalia.state import Effect, Prompt, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["ORDER_PROMPTS", "next_effect", "resolve_effect"]

#: Abilities that only ever add doubloons or move the owner's own token right: the number whose sign (in
#: the version's data) says so, or None for always.
_GAINS: dict[tuple[str, int], str | None] = {
    (DUSK, 10): None,
    (DUSK, 28): None,
    (NIGHT, 8): "night",
    (NIGHT, 22): "night",
    (NIGHT, 28): "night_per_token",
}


def _is_gain(state: State, effect: Effect) -> bool:
    if effect.rank:
        key = (effect.timing, effect.rank)
        if key not in _GAINS:
            return False
        name = _GAINS[key]
        return name is None or state.rules.number(effect.rank, name) >= 0
    return effect.timing == DUSK and effect.loot == BARREL and not state.stormy(BARREL)


def _distinct(state: State) -> list[Effect]:
    """The different due abilities of the seat whose turn it is (the first due ability's owner)."""
    seat = state.queue[0].seat
    return list(dict.fromkeys(e for e in state.queue if e.seat == seat))


#: What an anchor ability changes and what it reads (all others read and change nothing another changes).
_ANCHOR_WRITES: dict[tuple[int, int], str] = {(WITCH, -1): "ship", (0, AMULET): "reputation"}
_ANCHOR_READS: dict[tuple[int, int], str] = {(FIRST_MATE, -1): "ship", (0, BARREL): "reputation", (0, HOOK): "ship"}


def _key(effect: Effect) -> tuple[int, int]:
    return (effect.rank, -1) if effect.rank else (0, effect.loot)


def _anchor_order_matters(distinct: list[Effect]) -> bool:
    """Whether one due anchor ability changes what another reads."""
    writes = {_ANCHOR_WRITES.get(_key(e)) for e in distinct} - {None}
    return any(_ANCHOR_READS.get(_key(e)) in writes for e in distinct)


def _order_matters(state: State, distinct: list[Effect]) -> bool:
    if len(distinct) < 2:
        return False
    if distinct[0].timing == ANCHOR:
        return _anchor_order_matters(distinct)
    return not all(_is_gain(state, e) for e in distinct)


def _choosable(state: State) -> list[Effect]:
    """The due abilities the seat may resolve next: at anchor, no hook while the Witch's return is due."""
    distinct = _distinct(state)
    if distinct[0].timing == ANCHOR and any(_key(e) == (WITCH, -1) for e in distinct):
        return [e for e in distinct if _key(e) != (0, HOOK)]
    return distinct


def next_effect(run: Run) -> None:
    """Resolve the next due ability, or ask its owner which one first."""
    state = run.state
    if _order_matters(state, _distinct(state)):
        ask(run, Prompt(state.queue[0].seat, pb.LIBERTALIA_CHOICE_KIND_ORDER))
    else:
        resolve_effect(run, _choosable(state)[0])


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
        resolve_anchor(run, effect)


def _order_options(state: State, p: Prompt) -> list[Option]:
    return [("choose_ability", (e.rank, -1 if e.rank else e.loot)) for e in _choosable(state)]


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
