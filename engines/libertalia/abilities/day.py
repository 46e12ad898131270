"""Daytime abilities (rules 1.1), one small function per character, keyed by rank in :data:`DAY`.

Each takes ``(run, seat, actor, ability)``: ``actor`` is the island card acting (the Apprentice when it
copies), ``ability`` the rank whose text is used (copy rule 1.4: "this character" and positions mean the
actor, rank thresholds come from the ability's text). Their numbers are those of the game's rules version
(``run.state.rules``).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.libertalia.abilities.loot import draw_from_bag, token_dusk
from engines.libertalia.abilities.prompting import Option, PromptSpec, ask
from engines.libertalia.data import DAY, HOOK, RELIC, SABER, TYPES, LibertaliaRules
from engines.libertalia.ops import (
    BAG,
    BOX,
    GRAVEYARD,
    HAND,
    ISLAND,
    SHIP,
    SUPPLY,
    Place,
    Run,
    gain,
    move_card,
    move_loot,
    move_reputation,
    reputation,
)
from engines.libertalia.state import Prompt, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["DAY_ABILITIES", "DAY_PROMPTS"]

DayAbility = Callable[[Run, int, int, int], None]


def _ask(run: Run, kind: int, seat: int, actor: int, ability: int) -> None:
    ask(run, Prompt(seat, kind, actor, ability))


def _rightmost_owner(run: Run) -> tuple[int, int]:
    card = run.state.island[-1]
    return card.seat, card.rank


def _scout(run: Run, seat: int, actor: int, ability: int) -> None:
    move_card(run, seat, actor, ISLAND, GRAVEYARD)
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_SCOUT_PLACE, seat, actor, ability)


def _apprentice(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_APPRENTICE_COPY, seat, actor, ability)


def _beggar(run: Run, seat: int, actor: int, ability: int) -> None:
    owner, _ = _rightmost_owner(run)
    if owner < 0:
        return
    if owner != seat:
        paid = -gain(run, owner, -run.state.rules.number(3, "pays"))
        gain(run, seat, paid)
    reputation(run, owner, run.state.rules.number(3, "reputation"))


def _innkeeper(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_INNKEEPER_RETURN, seat, actor, ability)


def _cabin_boy(run: Run, seat: int, actor: int, ability: int) -> None:
    if run.state.island_index(seat, actor) == 0:
        gain(run, seat, run.state.rules.number(5, "leftmost_gain"))


def _bandit(run: Run, seat: int, actor: int, ability: int) -> None:
    gain(run, seat, move_reputation(run, seat, 0))


def _preacher(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_PREACHER_KEEP, seat, actor, ability)


def _stowaway(run: Run, seat: int, actor: int, ability: int) -> None:
    move_card(run, seat, actor, ISLAND, GRAVEYARD)
    loot = draw_from_bag(run, seat)
    if loot >= 0:
        token_dusk(run, seat, loot)


def _carpenter(run: Run, seat: int, actor: int, ability: int) -> None:
    gain(run, seat, -(run.state.players[seat].doubloons // run.state.rules.number(11, "keep_divisor")))


def _officer(run: Run, seat: int, actor: int, ability: int) -> None:
    doubloons, target = run.state.players[seat].doubloons, run.state.rules.number(12, "target")
    if doubloons >= target:
        reputation(run, seat, run.state.rules.number(12, "reputation"))
    else:
        gain(run, seat, target - doubloons)


def _smuggler(run: Run, seat: int, actor: int, ability: int) -> None:
    if run.state.pool:
        _ask(run, pb.LIBERTALIA_CHOICE_KIND_SMUGGLER_TAKE, seat, actor, ability)
    else:
        move_card(run, seat, actor, ISLAND, SHIP)


def _bodyguard(run: Run, seat: int, actor: int, ability: int) -> None:
    returned = 0
    for loot in (SABER, HOOK):
        count = run.state.pool.count(loot)
        move_loot(run, loot, count, BOX, run.state.day, BAG, 0)
        returned += count
    gain(run, seat, run.state.rules.number(14, "per_token") * returned)


def _brute(run: Run, seat: int, actor: int, ability: int) -> None:
    owner, rank = _rightmost_owner(run)
    if owner >= 0:
        move_card(run, owner, rank, ISLAND, GRAVEYARD)
        reputation(run, owner, run.state.rules.number(17, "reputation"))


def _gunner(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_GUNNER_DISCARD, seat, actor, ability)


def _necromancer(run: Run, seat: int, actor: int, ability: int) -> None:
    player = run.state.players[seat]
    if player.supply[RELIC] and player.graveyard:
        _ask(run, pb.LIBERTALIA_CHOICE_KIND_NECROMANCER_RAISE, seat, actor, ability)


def _bosun(run: Run, seat: int, actor: int, ability: int) -> None:
    below = run.state.rules.number(21, "rank_below")
    gain(
        run,
        seat,
        run.state.rules.number(21, "per_character") * sum(1 for r in run.state.players[seat].ship if r < below),
    )


def _brawler(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_BRAWLER_DISCARD, seat, actor, ability)


def _thief(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_THIEF_STEAL, seat, actor, ability)


def _recruiter(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_RECRUITER_RECRUIT, seat, actor, ability)


def _watchman(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_WATCHMAN_SWAP, seat, actor, ability)


def _infantry(run: Run, seat: int, actor: int, ability: int) -> None:
    if run.state.island_index(seat, actor) == len(run.state.island) - 1:
        gain(run, seat, run.state.rules.number(29, "rightmost_gain"))


def _merchant(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_MERCHANT_SELL, seat, actor, ability)


def _surgeon(run: Run, seat: int, actor: int, ability: int) -> None:
    _ask(run, pb.LIBERTALIA_CHOICE_KIND_SURGEON_RETURN, seat, actor, ability)


def _gambler(run: Run, seat: int, actor: int, ability: int) -> None:
    gain(run, seat, run.state.rules.number(33, "per_token") * run.state.players[seat].loot_count)


def _aristocrat(run: Run, seat: int, actor: int, ability: int) -> None:
    reputation(run, seat, run.state.rules.number(34, "reputation"))


def _quartermaster(run: Run, seat: int, actor: int, ability: int) -> None:
    gain(run, seat, run.state.rules.number(36, "per_token") * run.state.players[seat].loot_count)


def _first_mate(run: Run, seat: int, actor: int, ability: int) -> None:
    gain(run, seat, run.state.rules.number(38, "per_character") * len(run.state.players[seat].ship))


def _captain(run: Run, seat: int, actor: int, ability: int) -> None:
    gain(run, seat, -move_reputation(run, seat, 5))


def _governor(run: Run, seat: int, actor: int, ability: int) -> None:
    ship = run.state.players[seat].ship
    for rank in ship:
        move_card(run, seat, rank, SHIP, GRAVEYARD)
    reputation(run, seat, run.state.rules.number(40, "reputation_per_character") * len(ship))


DAY_ABILITIES: dict[int, DayAbility] = {
    1: _scout,
    2: _apprentice,
    3: _beggar,
    4: _innkeeper,
    5: _cabin_boy,
    6: _bandit,
    7: _preacher,
    9: _stowaway,
    11: _carpenter,
    12: _officer,
    13: _smuggler,
    14: _bodyguard,
    17: _brute,
    18: _gunner,
    19: _necromancer,
    21: _bosun,
    22: _brawler,
    23: _thief,
    25: _recruiter,
    27: _watchman,
    29: _infantry,
    30: _merchant,
    31: _surgeon,
    33: _gambler,
    34: _aristocrat,
    36: _quartermaster,
    38: _first_mate,
    39: _captain,
    40: _governor,
}


# --- the choices of daytime abilities: options and resolution --------------------------------------


def _own(field: str) -> Callable[[State, Prompt], list[Option]]:
    def options(state: State, p: Prompt) -> list[Option]:
        """Every card of the chooser's ``field``."""
        cards: tuple[int, ...] = getattr(state.players[p.seat], field)
        return [("choose_character", (p.seat, r)) for r in sorted(cards)]

    return options


def _mover(source: Place, target: Place) -> Callable[[Run, Prompt, Option], None]:
    def resolve(run: Run, p: Prompt, option: Option) -> None:
        """Move the chosen card."""
        move_card(run, option[1][0], option[1][1], source, target)

    return resolve


def _apprentice_options(state: State, p: Prompt) -> list[Option]:
    ship = state.players[p.seat].ship
    day = state.rules.timed[DAY]
    return [("choose_character", (p.seat, r)) for r in sorted(ship) if r in day]


def _apprentice_resolve(run: Run, p: Prompt, option: Option) -> None:
    rank = option[1][1]
    DAY_ABILITIES[rank](run, p.seat, p.source, rank)


def _held(state: State, seat: int) -> list[Option]:
    supply = state.players[seat].supply
    return [("choose_loot", (seat, t, 0)) for t in range(TYPES) if supply[t]]


def _preacher_resolve(run: Run, p: Prompt, option: Option) -> None:
    keep = option[1][1]
    returned = 0
    for loot in range(TYPES):
        count = run.state.players[p.seat].supply[loot] - (1 if loot == keep else 0)
        move_loot(run, loot, count, SUPPLY, p.seat, BAG, 0)
        returned += max(0, count)
    reputation(run, p.seat, run.state.rules.number(7, "reputation_per_token") * returned)


def _pool_options(state: State, p: Prompt) -> list[Option]:
    return [("choose_loot", (-1, t, 0)) for t in sorted(set(state.pool))]


def _smuggler_resolve(run: Run, p: Prompt, option: Option) -> None:
    loot = option[1][1]
    move_loot(run, loot, 1, BOX, run.state.day, SUPPLY, p.seat)
    if run.state.island_index(p.seat, p.source) >= 0:
        move_card(run, p.seat, p.source, ISLAND, SHIP)
    token_dusk(run, p.seat, loot)


def _gunner_options(state: State, p: Prompt) -> list[Option]:
    return [("choose_character", (s, r)) for s, pl in enumerate(state.players) for r in sorted(pl.ship)]


def _gunner_resolve(run: Run, p: Prompt, option: Option) -> None:
    owner, rank = option[1]
    move_card(run, owner, rank, SHIP, GRAVEYARD)
    reputation(run, p.seat, run.state.rules.number(18, "own_reputation" if owner == p.seat else "other_reputation"))


def _necromancer_resolve(run: Run, p: Prompt, option: Option) -> None:
    move_loot(run, RELIC, 1, SUPPLY, p.seat, BAG, 0)
    move_card(run, p.seat, option[1][1], GRAVEYARD, SHIP)


def _brawler_options(state: State, p: Prompt) -> list[Option]:
    return [("choose_character", (s, 22)) for s, pl in enumerate(state.players) if s != p.seat and 22 in pl.ship]


def _brawler_resolve(run: Run, p: Prompt, option: Option) -> None:
    move_card(run, option[1][0], 22, SHIP, GRAVEYARD)
    reputation(run, p.seat, run.state.rules.number(22, "reputation"))


def neighbours(state: State, seat: int) -> list[int]:
    """The seat's left and right neighbours (one seat in a two-player game)."""
    return sorted({(seat + 1) % state.seats, (seat - 1) % state.seats} - {seat})


def _thief_options(state: State, p: Prompt) -> list[Option]:
    return [option for s in neighbours(state, p.seat) for option in _held(state, s)]


def _thief_resolve(run: Run, p: Prompt, option: Option) -> None:
    owner, loot, _ = option[1]
    move_loot(run, loot, 1, SUPPLY, owner, SUPPLY, p.seat)
    reputation(run, p.seat, run.state.rules.number(23, "reputation"))


def _watchman_options(state: State, p: Prompt) -> list[Option]:
    if state.day >= state.days:
        return []
    later = sorted(set(state.boxes[state.day]))
    return [("swap_loot", (a, b)) for a in sorted(set(state.pool)) for b in later]


def _watchman_resolve(run: Run, p: Prompt, option: Option) -> None:
    today, later = option[1]
    day = run.state.day
    move_loot(run, today, 1, BOX, day, BOX, day + 1)
    move_loot(run, later, 1, BOX, day + 1, BOX, day)


def _merchant_options(state: State, p: Prompt) -> list[Option]:
    supply = state.players[p.seat].supply
    most = state.rules.number(30, "max_tokens")
    return [("choose_loot", (p.seat, t, n)) for t in range(TYPES) for n in range(1, min(most, supply[t]) + 1)]


def _merchant_resolve(run: Run, p: Prompt, option: Option) -> None:
    _, loot, count = option[1]
    move_loot(run, loot, count, SUPPLY, p.seat, BAG, 0)
    gain(run, p.seat, run.state.rules.numbers_of(30, "gain_by_count")[count])


def _merchant_text(rules: LibertaliaRules) -> str:
    return f"choose a loot type you hold and how many (1 to {rules.number(30, 'max_tokens')}) to sell"


DAY_PROMPTS: dict[int, PromptSpec] = {
    pb.LIBERTALIA_CHOICE_KIND_SCOUT_PLACE: PromptSpec(
        "choose a character from your hand to place on the island", _own("hand"), _mover(HAND, ISLAND)
    ),
    pb.LIBERTALIA_CHOICE_KIND_APPRENTICE_COPY: PromptSpec(
        "choose a character in your ship with a daytime ability to copy", _apprentice_options, _apprentice_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_INNKEEPER_RETURN: PromptSpec(
        "choose a character in your ship to return to your hand", _own("ship"), _mover(SHIP, HAND)
    ),
    pb.LIBERTALIA_CHOICE_KIND_PREACHER_KEEP: PromptSpec(
        "choose the type of the one loot token you keep", lambda s, p: _held(s, p.seat), _preacher_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_SMUGGLER_TAKE: PromptSpec(
        "choose a loot token from today's pool", _pool_options, _smuggler_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_GUNNER_DISCARD: PromptSpec(
        "choose a character in any ship to discard", _gunner_options, _gunner_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_NECROMANCER_RAISE: PromptSpec(
        "choose a character in your graveyard to move to your ship", _own("graveyard"), _necromancer_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_BRAWLER_DISCARD: PromptSpec(
        "choose an opponent's Brawler in their ship to discard", _brawler_options, _brawler_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_THIEF_STEAL: PromptSpec(
        "choose a loot token held by a seat neighbour", _thief_options, _thief_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_RECRUITER_RECRUIT: PromptSpec(
        "choose a character from your hand to put into your ship", _own("hand"), _mover(HAND, SHIP)
    ),
    pb.LIBERTALIA_CHOICE_KIND_WATCHMAN_SWAP: PromptSpec(
        "choose a token of today's pool and one of the next day's box to swap", _watchman_options, _watchman_resolve
    ),
    pb.LIBERTALIA_CHOICE_KIND_MERCHANT_SELL: PromptSpec(
        _merchant_text,
        _merchant_options,
        _merchant_resolve,
    ),
    pb.LIBERTALIA_CHOICE_KIND_SURGEON_RETURN: PromptSpec(
        "choose a character in your graveyard to return to your hand", _own("graveyard"), _mover(GRAVEYARD, HAND)
    ),
}
