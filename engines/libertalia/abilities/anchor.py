"""Anchor abilities resolved one at a time (rule 4.1), for the seat whose anchor turn it is.

Most anchor abilities read nothing another anchor ability changes; they are netted at scoring
(:mod:`engines.libertalia.scoring`). Which ones are queued here depends on the version's flag ``anchor``
(:data:`engines.libertalia.data.FLAGS`):

* ``ordered`` (:func:`anchor_effects`): those whose result depends on the order: the Witch's return to
  hand (it changes the ship), the First Mate's count of ship characters, a Stormy barrel's reading of the
  reputation track, and the choices (Calm hook, Stormy amulet, which can move the seat's token). Each
  records its value when it resolves (LibertaliaAnchorReward); see
  :mod:`engines.libertalia.abilities.order` for which orders the seat is asked to choose.
* ``netted`` (:func:`anchor_choices`): the choices only. The Witches return as the anchor begins
  (:mod:`engines.libertalia.flow`); the First Mate and Stormy barrels are netted at scoring.
"""

from __future__ import annotations

from engines.libertalia.abilities.loot import ANCHOR_CHOICES
from engines.libertalia.abilities.night import WITCH
from engines.libertalia.abilities.prompting import ask
from engines.libertalia.data import ANCHOR, BARREL, NIGHT, TYPES
from engines.libertalia.ops import HAND, SHIP, Run, anchor_reward, move_card
from engines.libertalia.scoring import FIRST_MATE, first_mate_gain, stormy_barrel_gain
from engines.libertalia.state import Effect, Prompt, State

__all__ = ["FIRST_MATE", "WITCH", "anchor_choices", "anchor_effects", "resolve_anchor", "witch_returns"]


def witch_returns(state: State, seat: int) -> bool:
    """The Witch is in the seat's ship and is its only character with a night ability."""
    ship = state.players[seat].ship
    night = state.rules.timed[NIGHT]
    return WITCH in ship and [r for r in ship if r in night] == [WITCH]


def anchor_choices(state: State, seat: int) -> list[Effect]:
    """The anchor abilities of ``seat`` that ask a choice (Calm hooks, Stormy amulets), one per token."""
    supply = state.players[seat].supply
    return [
        Effect(seat, 0, loot, ANCHOR)
        for loot in range(TYPES)
        if (loot, state.stormy(loot)) in ANCHOR_CHOICES
        for _ in range(supply[loot])
    ]


def anchor_effects(state: State, seat: int) -> list[Effect]:
    """``anchor=ordered``: the anchor abilities of ``seat`` resolved one at a time, the Witch's return
    first (it precedes hook choices, rule 4.1)."""
    effects = [Effect(seat, WITCH, -1, ANCHOR)] if witch_returns(state, seat) else []
    if FIRST_MATE in state.players[seat].ship:
        effects.append(Effect(seat, FIRST_MATE, -1, ANCHOR))
    supply = state.players[seat].supply
    for loot in range(TYPES):
        if (loot, state.stormy(loot)) in ANCHOR_CHOICES or (loot == BARREL and state.stormy(BARREL)):
            effects += [Effect(seat, 0, loot, ANCHOR)] * supply[loot]
    return effects


def resolve_anchor(run: Run, effect: Effect) -> None:
    """Resolve one queued anchor ability of ``effect.seat`` now."""
    seat, state = effect.seat, run.state
    if effect.rank == WITCH:
        if witch_returns(state, seat):
            move_card(run, seat, WITCH, SHIP, HAND)
    elif effect.rank == FIRST_MATE:
        anchor_reward(run, seat, first_mate_gain(state, seat), rank=FIRST_MATE)
    elif effect.loot == BARREL:
        anchor_reward(run, seat, stormy_barrel_gain(state, seat), loot=BARREL)
    else:
        kind = ANCHOR_CHOICES[(effect.loot, state.stormy(effect.loot))]
        ask(run, Prompt(seat, kind, loot=effect.loot))
