"""Loot token abilities (rules 1.3) and the dusk abilities of characters (Explorer, Cook, Armorer).

A token's dusk ability fires when it is first gained (:func:`token_dusk`); a token passed between seats
(Thief, Stormy hook) fires nothing. Anchor choices (Calm hook, Stormy amulet) are asked here too; the
anchor's doubloons are netted in :mod:`engines.libertalia.scoring`. Every number is the game's rules
version's (``run.state.rules``).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.libertalia.abilities.prompting import Option, PromptSpec, ask
from engines.libertalia.chance import weighted_draw
from engines.libertalia.data import AMULET, BARREL, DUSK, HOOK, MAP, SABER, TYPES, LibertaliaRules
from engines.libertalia.ops import (
    BAG,
    BOX,
    GRAVEYARD,
    ISLAND,
    SHIP,
    SUPPLY,
    Place,
    Run,
    anchor_reward,
    move_card,
    move_loot,
    queue_effects,
    reputation,
)
from engines.libertalia.state import Effect, Prompt, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = [
    "ANCHOR_CHOICES",
    "DUSK_ABILITIES",
    "LOOT_PROMPTS",
    "draw_from_bag",
    "dusk_effect",
    "has_token_dusk",
    "queue_dusk_effects",
    "token_dusk",
]

K = pb  # the choice kinds live in the generated module


def draw_from_bag(run: Run, seat: int) -> int:
    """Draw one random token from the bag into ``seat``'s supply; the type drawn, or -1 if the bag is empty."""
    state = run.state
    loot = weighted_draw(state.seed, state.draws, state.bag)
    if loot >= 0:
        move_loot(run, loot, 1, BAG, 0, SUPPLY, seat)
    return loot


def has_token_dusk(state: State, loot: int) -> bool:
    """Whether a token of this type has a dusk ability on its side of the board."""
    return (loot, state.stormy(loot)) in _TOKEN_DUSK


def token_dusk(run: Run, seat: int, loot: int) -> None:
    """Resolve the dusk ability of a token ``seat`` just gained (nothing if its side has none)."""
    ability = _TOKEN_DUSK.get((loot, run.state.stormy(loot)))
    if ability is not None:
        ability(run, seat)


def _calm_barrel(run: Run, seat: int) -> None:
    reputation(run, seat, run.state.rules.board["calm_barrel_dusk"])


def _stormy_barrel(run: Run, seat: int) -> None:
    reputation(run, seat, run.state.rules.board["stormy_barrel_dusk"])


def _calm_saber(run: Run, seat: int) -> None:
    ask(run, Prompt(seat, K.LIBERTALIA_CHOICE_KIND_SABER_ISLAND, loot=SABER))


def _stormy_saber(run: Run, seat: int) -> None:
    ask(run, Prompt(seat, K.LIBERTALIA_CHOICE_KIND_SABER_SHIP, loot=SABER))


def _stormy_hook(run: Run, seat: int) -> None:
    ask(run, Prompt(seat, K.LIBERTALIA_CHOICE_KIND_HOOK_STEAL, loot=HOOK))


_TOKEN_DUSK: dict[tuple[int, bool], Callable[[Run, int], None]] = {
    (BARREL, False): _calm_barrel,
    (SABER, False): _calm_saber,
    (BARREL, True): _stormy_barrel,
    (SABER, True): _stormy_saber,
    (HOOK, True): _stormy_hook,
}


# --- dusk abilities of characters: (run, seat, rank, token taken this dusk or -1) -------------------


def _explorer(run: Run, seat: int, rank: int, taken: int) -> None:
    if taken == MAP:
        reputation(run, seat, run.state.rules.number(10, "map_reputation"))


def _cook(run: Run, seat: int, rank: int, taken: int) -> None:
    if run.state.island_index(seat, rank) >= 0 and run.state.pool:
        ask(run, Prompt(seat, K.LIBERTALIA_CHOICE_KIND_COOK_TAKE, rank, rank))


def _armorer(run: Run, seat: int, rank: int, taken: int) -> None:
    if taken in (SABER, HOOK):
        reputation(run, seat, run.state.rules.number(28, "reputation"))


DUSK_ABILITIES: dict[int, Callable[[Run, int, int, int], None]] = {10: _explorer, 26: _cook, 28: _armorer}


# --- choices ------------------------------------------------------------------------------------------


def _pool(state: State, p: Prompt) -> list[Option]:
    return [("choose_loot", (-1, t, 0)) for t in sorted(set(state.pool))]


def _take_and_fire(run: Run, p: Prompt, option: Option) -> None:
    loot = option[1][1]
    move_loot(run, loot, 1, BOX, run.state.day, SUPPLY, p.seat)
    token_dusk(run, p.seat, loot)


def queue_dusk_effects(run: Run, seat: int, rank: int, taken: int) -> None:
    """After the dusk take: the dusk abilities of the character and of the token taken become due (one
    alone resolves at once; two wait for their owner's order)."""
    effects = []
    if (rank == 10 and taken == MAP) or (rank == 28 and taken in (SABER, HOOK)) or rank == 26:
        effects.append(Effect(seat, rank, taken, DUSK))
    if taken >= 0 and has_token_dusk(run.state, taken):
        effects.append(Effect(seat, 0, taken, DUSK))
    if len(effects) > 1:
        queue_effects(run, seat, DUSK, effects)
    elif effects:
        dusk_effect(run, effects[0])


def dusk_effect(run: Run, effect: Effect) -> None:
    """Resolve the dusk ability of a character (rank > 0) or of the token just taken."""
    if effect.rank:
        DUSK_ABILITIES[effect.rank](run, effect.seat, effect.rank, effect.loot)
    else:
        token_dusk(run, effect.seat, effect.loot)


def _dusk_take(run: Run, p: Prompt, option: Option) -> None:
    loot = option[1][1]
    move_loot(run, loot, 1, BOX, run.state.day, SUPPLY, p.seat)
    queue_dusk_effects(run, p.seat, p.source, loot)


def _midshipman_return(run: Run, p: Prompt, option: Option) -> None:
    move_loot(run, option[1][1], 1, BOX, run.state.day, BAG, 0)


def _island_targets(state: State, p: Prompt) -> list[Option]:
    return [("choose_character", (c.seat, c.rank)) for c in state.island if c.seat >= 0 and c.seat != p.seat]


def _ship_targets(state: State, p: Prompt) -> list[Option]:
    return [("choose_character", (s, r)) for s, pl in enumerate(state.players) if s != p.seat for r in sorted(pl.ship)]


def _discard_from(place: Place) -> Callable[[Run, Prompt, Option], None]:
    def resolve(run: Run, p: Prompt, option: Option) -> None:
        """Discard the chosen card."""
        move_card(run, option[1][0], option[1][1], place, GRAVEYARD)

    return resolve


def _others_loot(state: State, p: Prompt) -> list[Option]:
    return [
        ("choose_loot", (s, t, 0))
        for s, pl in enumerate(state.players)
        if s != p.seat
        for t in range(TYPES)
        if pl.supply[t]
    ]


def _steal(run: Run, p: Prompt, option: Option) -> None:
    owner, loot, _ = option[1]
    move_loot(run, loot, 1, SUPPLY, owner, SUPPLY, p.seat)


def _hook_keep_options(state: State, p: Prompt) -> list[Option]:
    player = state.players[p.seat]
    keep = [("choose_character", (p.seat, r)) for r in sorted(player.ship) if r not in player.kept]
    return [*keep, ("choose_reward", (pb.LIBERTALIA_REWARD_DOUBLOONS,))]


def _hook_keep(run: Run, p: Prompt, option: Option) -> None:
    if option[0] == "choose_character":
        run.emit(pb.LibertaliaEvent(character_kept=pb.LibertaliaCharacterKept(seat=p.seat, rank=option[1][1])))
    else:
        _reward(run, p.seat, HOOK, pb.LIBERTALIA_REWARD_DOUBLOONS, run.state.rules.board["calm_hook_gain"])


def _amulet_options(state: State, p: Prompt) -> list[Option]:
    return [("choose_reward", (pb.LIBERTALIA_REWARD_DOUBLOONS,)), ("choose_reward", (pb.LIBERTALIA_REWARD_REPUTATION,))]


def _amulet(run: Run, p: Prompt, option: Option) -> None:
    if option[1][0] == pb.LIBERTALIA_REWARD_DOUBLOONS:
        _reward(run, p.seat, AMULET, pb.LIBERTALIA_REWARD_DOUBLOONS, run.state.rules.board["stormy_amulet_doubloons"])
        return
    steps = run.state.rules.board["stormy_amulet_reputation"]
    space = run.state.space(p.seat)
    target = min(5, space + steps)
    if target != space:
        moved = pb.LibertaliaReputationMoved(seat=p.seat, from_space=space, to_space=target)
        run.emit(pb.LibertaliaEvent(reputation_moved=moved))
    _reward(run, p.seat, AMULET, pb.LIBERTALIA_REWARD_REPUTATION, space + steps - target)


def _reward(run: Run, seat: int, loot: int, reward: int, doubloons: int) -> None:
    anchor_reward(run, seat, doubloons, loot=loot, reward=reward)


def _hook_text(rules: LibertaliaRules) -> str:
    return f"choose a character in your ship to keep for the next voyage, or {rules.board['calm_hook_gain']} doubloons"


def _amulet_text(rules: LibertaliaRules) -> str:
    board = rules.board
    return f"choose {board['stormy_amulet_doubloons']} doubloons or reputation +{board['stormy_amulet_reputation']}"


ANCHOR_CHOICES: dict[tuple[int, bool], int] = {
    (HOOK, False): K.LIBERTALIA_CHOICE_KIND_HOOK_KEEP,
    (AMULET, True): K.LIBERTALIA_CHOICE_KIND_AMULET_REWARD,
}

LOOT_PROMPTS: dict[int, PromptSpec] = {
    K.LIBERTALIA_CHOICE_KIND_DUSK_TAKE: PromptSpec("choose a loot token from today's pool", _pool, _dusk_take),
    K.LIBERTALIA_CHOICE_KIND_COOK_TAKE: PromptSpec(
        "choose a second loot token from today's pool", _pool, _take_and_fire
    ),
    K.LIBERTALIA_CHOICE_KIND_MIDSHIPMAN_RETURN: PromptSpec(
        "choose a loot token of today's pool to return to the bag", _pool, _midshipman_return
    ),
    K.LIBERTALIA_CHOICE_KIND_SABER_ISLAND: PromptSpec(
        "choose another player's character on the island to discard", _island_targets, _discard_from(ISLAND)
    ),
    K.LIBERTALIA_CHOICE_KIND_SABER_SHIP: PromptSpec(
        "choose a character in another player's ship to discard", _ship_targets, _discard_from(SHIP)
    ),
    K.LIBERTALIA_CHOICE_KIND_HOOK_STEAL: PromptSpec(
        "choose a loot token held by another player to take", _others_loot, _steal
    ),
    K.LIBERTALIA_CHOICE_KIND_HOOK_KEEP: PromptSpec(
        _hook_text,
        _hook_keep_options,
        _hook_keep,
    ),
    K.LIBERTALIA_CHOICE_KIND_AMULET_REWARD: PromptSpec(
        _amulet_text,
        _amulet_options,
        _amulet,
    ),
}
