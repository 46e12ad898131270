"""Night abilities (rules 1.1, 3.5): one small function per character, keyed by rank in :data:`NIGHT`.

Each takes ``(run, seat, actor, ability)`` like the daytime ones: ``actor`` is the ship card acting (the
Witch when she copies). Night abilities touch only their owner's ship, supply and doubloons. Their numbers
are those of the game's rules version (``run.state.rules``).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.libertalia.abilities.prompting import Option, PromptSpec, ask
from engines.libertalia.data import HOOK, NIGHT, RELIC, SABER
from engines.libertalia.ops import GRAVEYARD, SHIP, Run, gain, move_card
from engines.libertalia.state import Prompt, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["NIGHT_ABILITIES", "NIGHT_PROMPTS", "WIND_NYMPH", "WITCH", "relic_night"]

WITCH, WIND_NYMPH = 15, 37


def _discard_if_in_ship(run: Run, seat: int, rank: int) -> None:
    if rank in run.state.players[seat].ship:
        move_card(run, seat, rank, SHIP, GRAVEYARD)


def _night_gain(run: Run, seat: int, actor: int, ability: int) -> None:
    gain(run, seat, run.state.rules.number(ability, "night"))


def _witch(run: Run, seat: int, actor: int, ability: int) -> None:
    ask(run, Prompt(seat, pb.LIBERTALIA_CHOICE_KIND_WITCH_COPY, actor, ability))


def _mutineer(run: Run, seat: int, actor: int, ability: int) -> None:
    ship = run.state.players[seat].ship
    if ship:
        move_card(run, seat, min(ship), SHIP, GRAVEYARD)
    gain(run, seat, run.state.rules.number(16, "gain"))


def _freed_prisoner(run: Run, seat: int, actor: int, ability: int) -> None:
    rules = run.state.rules
    above = rules.number(20, "rank_above")
    count = sum(1 for r in run.state.players[seat].ship if r > above)
    gained = gain(run, seat, rules.number(20, "per_character") * count)
    if gained >= rules.number(20, "discard_at"):
        _discard_if_in_ship(run, seat, actor)


def _topman(run: Run, seat: int, actor: int, ability: int) -> None:
    rules = run.state.rules
    gain(run, seat, rules.number(24, "base") + rules.number(24, "per_character") * len(run.state.players[seat].ship))


def _armorer(run: Run, seat: int, actor: int, ability: int) -> None:
    supply = run.state.players[seat].supply
    gain(run, seat, run.state.rules.number(28, "night_per_token") * (supply[SABER] + supply[HOOK]))


def _wind_nymph(run: Run, seat: int, actor: int, ability: int) -> None:
    if set(run.state.nymphs) <= {seat}:
        gain(run, seat, run.state.rules.number(WIND_NYMPH, "gain"))
    else:
        _discard_if_in_ship(run, seat, WIND_NYMPH)


def relic_night(run: Run, seat: int) -> None:
    """Stormy relics: lose 1 per relic held."""
    gain(run, seat, run.state.rules.board["stormy_relic_night"] * run.state.players[seat].supply[RELIC])


NIGHT_ABILITIES: dict[int, Callable[[Run, int, int, int], None]] = {
    8: _night_gain,
    WITCH: _witch,
    16: _mutineer,
    20: _freed_prisoner,
    22: _night_gain,
    24: _topman,
    28: _armorer,
    WIND_NYMPH: _wind_nymph,
}


def _witch_options(state: State, p: Prompt) -> list[Option]:
    ship = state.players[p.seat].ship
    night = state.rules.timed[NIGHT]
    return [("choose_character", (p.seat, r)) for r in sorted(ship) if r != WITCH and r in night]


def _witch_resolve(run: Run, p: Prompt, option: Option) -> None:
    rank = option[1][1]
    NIGHT_ABILITIES[rank](run, p.seat, p.source, rank)


NIGHT_PROMPTS: dict[int, PromptSpec] = {
    pb.LIBERTALIA_CHOICE_KIND_WITCH_COPY: PromptSpec(
        "choose another character in your ship with a night ability to copy", _witch_options, _witch_resolve
    ),
}
