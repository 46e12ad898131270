"""Loot tokens on each board side (rules 1.3) and the reputation track (rules 1.2)."""

from __future__ import annotations

from engines.libertalia.state import Phase, State
from parlour.v1 import libertalia_pb2 as pb
from tests.engines.libertalia.helpers import (
    AMULET,
    BARREL,
    CHEST,
    HOOK,
    MAP,
    RELIC,
    SABER,
    answer,
    character,
    kinds,
    legal,
    loot,
    reward,
    run,
    scenario,
    supply,
)


def dusk_take(board: str, token: int, **fields: object) -> State:
    """Seat 0's Bosun (rank 21) takes ``token`` at dusk, a lone token in the pool."""
    state = scenario(board=board, island=((1, 4), (0, 21)), pool=(token,), phase=Phase.DUSK, **fields)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    return run(state, stop_at=Phase.NIGHT)[0]


def anchor_net(board: str, seat_supply: tuple[int, ...], seats: int = 3, **fields: object) -> int:
    """Seat 0's anchor net holding ``seat_supply``."""
    state = scenario(seats, board, players={0: {"supply": seat_supply}}, phase=Phase.ANCHOR, turn=-1, **fields)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    _, events = run(state, stop_at=None)
    return next(e.voyage_scored for e in events if e.WhichOneof("kind") == "voyage_scored").scores[0].anchor_net


def test_calm_maps_score_in_pairs_and_trios() -> None:
    """1 map 0, 2 maps 7, 3 maps 12, 5 maps 19."""
    assert [anchor_net("calm", supply(map=n)) for n in (1, 2, 3, 5)] == [0, 7, 12, 19]


def test_stormy_maps_score_nothing_before_the_last_voyage_then_triangular() -> None:
    """Voyage 1: 0; voyage 3: n(n+1)/2."""
    assert anchor_net("stormy", supply(map=3)) == 0
    assert anchor_net("stormy", supply(map=3), voyage=3) == 6


def test_calm_barrel_gives_reputation_at_dusk_and_one_at_anchor() -> None:
    """Dusk +1 reputation; anchor +1."""
    assert dusk_take("calm", BARREL).space(0) == 1
    assert anchor_net("calm", supply(barrel=2)) == 2


def test_stormy_barrel_costs_reputation_and_pays_low_reputation() -> None:
    """Dusk -1 reputation; anchor 3 each in the three leftmost spaces, else 1."""
    assert dusk_take("stormy", BARREL, reputation=(1, 0, 2, -1, -1, -1)).space(0) == 0
    assert anchor_net("stormy", supply(barrel=2)) == 6
    assert anchor_net("stormy", supply(barrel=2), reputation=(1, 2, -1, -1, -1, 0)) == 2


def test_calm_amulet_and_chest_pay_at_anchor() -> None:
    """Amulet +3, chest +5."""
    assert anchor_net("calm", supply(amulet=1)) == 3 and anchor_net("calm", supply(chest=1)) == 5


def test_stormy_amulet_offers_doubloons_or_reputation() -> None:
    """The owner chooses 4 doubloons or +2 reputation."""
    state = scenario(board="stormy", players={0: {"supply": supply(amulet=1)}}, phase=Phase.ANCHOR, turn=-1)
    state, _ = run(state, stop_at=None)
    assert [c.choose_reward.reward for c in legal(state, 0)] == [1, 2]
    _, events = answer(state, 0, reward(pb.LIBERTALIA_REWARD_REPUTATION), stop_at=None)
    moved = next(e.reputation_moved for e in events if e.WhichOneof("kind") == "reputation_moved")
    assert (moved.from_space, moved.to_space) == (0, 2)


def test_stormy_chest_pays_more_when_no_one_else_holds_one() -> None:
    """Alone 7, shared 4."""
    assert anchor_net("stormy", supply(chest=1)) == 7
    state = scenario(
        board="stormy",
        players={0: {"supply": supply(chest=1)}, 1: {"supply": supply(chest=1)}},
        phase=Phase.ANCHOR,
        turn=-1,
    )
    _, events = run(state, stop_at=None)
    assert next(e.voyage_scored for e in events if e.WhichOneof("kind") == "voyage_scored").scores[0].anchor_net == 4


def test_calm_hook_keeps_a_character_or_pays_two() -> None:
    """With a ship card the owner may keep it; with nothing to keep the hook pays 2."""
    assert anchor_net("calm", supply(hook=1)) == 2
    state = scenario(players={0: {"supply": supply(hook=1), "ship": (21,)}}, phase=Phase.ANCHOR, turn=-1)
    state, _ = run(state, stop_at=None)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_HOOK_KEEP
    state, events = answer(state, 0, character(0, 21), stop_at=None)
    assert state.players[0].ship == (21,) and state.voyage == 2 and "character_kept" in kinds(events)


def test_stormy_hook_steals_a_token_at_dusk_without_firing_it() -> None:
    """The stolen barrel gives no reputation."""
    state = dusk_take("stormy", HOOK, players={0: {"hand": (40,)}, 1: {"supply": supply(barrel=1)}})
    assert state.players[0].supply == supply(hook=1, barrel=1) and state.space(0) == 0


def test_calm_saber_discards_another_players_island_character() -> None:
    """The saber taken by the rightmost card discards a card still on the island."""
    state = dusk_take("calm", SABER)
    assert state.players[1].graveyard == (4,)


def test_calm_saber_with_no_other_island_card_does_nothing() -> None:
    """No target left on the island: nothing happens."""
    state = scenario(island=((0, 21),), pool=(SABER,), phase=Phase.DUSK)
    state, _ = run(state, stop_at=Phase.NIGHT)
    assert state.players[0].supply == supply(saber=1) and state.players[1].graveyard == ()


def test_stormy_saber_discards_from_another_ship() -> None:
    """A card of another player's ship is discarded."""
    state = dusk_take("stormy", SABER, players={0: {"hand": (40,)}, 2: {"ship": (8,)}})
    assert state.players[2].graveyard == (8,)


def test_relic_costs_three_calm_and_one_per_night_and_anchor_stormy() -> None:
    """Calm anchor -3; Stormy: -1 at night and -1 at anchor."""
    assert anchor_net("calm", supply(relic=1)) == -3
    assert anchor_net("stormy", supply(relic=1)) == -1
    state = scenario(
        board="stormy", players={0: {"supply": supply(relic=2), "doubloons": 5}}, phase=Phase.NIGHT, turn=-1
    )
    state, _ = run(state, stop_at=Phase.SELECT)
    assert state.players[0].doubloons == 3


def test_uncharted_rolls_a_side_per_loot_type() -> None:
    """Uncharted games record one side per type, drawn from the seed."""
    from engines.libertalia import LIBERTALIA

    started = LIBERTALIA.start(LIBERTALIA.spec.config(3, {"board": "uncharted"}), b"u")[0].game_started
    assert len(started.sides) == 7 and set(started.sides) <= {1, 2}


def test_gaining_reputation_pushes_the_tokens_passed_one_space_left() -> None:
    """Seat 0 moving +2 passes seats 1 and 2, which slide left."""
    state, _ = run(scenario(island=((0, 34),)))
    assert state.reputation[:3] == (1, 2, 0)


def test_overflow_right_gains_a_doubloon_per_step() -> None:
    """From the rightmost space +2 reputation gives 2 doubloons."""
    state, _ = run(scenario(island=((0, 34),), reputation=(1, 2, -1, -1, -1, 0)))
    assert state.space(0) == 5 and state.players[0].doubloons == 2


def test_overflow_left_costs_a_doubloon_per_step_down_to_zero() -> None:
    """From the leftmost space -2 reputation costs 2, but never below 0."""
    rich, _ = run(scenario(players={0: {"doubloons": 5}, 1: {"supply": supply(map=1)}}, island=((0, 23),)))
    poor, _ = run(scenario(players={1: {"supply": supply(map=1)}}, island=((0, 23),)))
    assert rich.players[0].doubloons == 3 and poor.players[0].doubloons == 0 and rich.space(0) == 0


def test_bandit_and_captain_moves_never_overflow() -> None:
    """Already leftmost, the Bandit gains nothing; already rightmost, the Captain pays nothing."""
    bandit, _ = run(scenario(island=((0, 6),)))
    captain, _ = run(scenario(players={0: {"doubloons": 4}}, island=((0, 39),), reputation=(1, 2, -1, -1, -1, 0)))
    assert bandit.players[0].doubloons == 0 and captain.players[0].doubloons == 4


def test_dummy_tokens_are_pushed_like_player_tokens() -> None:
    """A dummy between two spaces slides left when passed."""
    state, _ = run(scenario(island=((0, 34),), reputation=(0, -1, 1, 2, -1, -1)))
    assert state.reputation == (-1, 1, 0, 2, -1, -1)


def test_loot_helpers_cover_every_type() -> None:
    """The helpers name all seven loot types."""
    assert {MAP, BARREL, AMULET, CHEST, HOOK, SABER, RELIC} == set(range(7)) and loot(MAP).choose_loot.loot == 1


def test_stormy_hook_and_saber_with_no_target_do_nothing() -> None:
    """No other supply holds loot and no other ship holds a card: the token is simply kept."""
    hook = dusk_take("stormy", HOOK)
    saber = dusk_take("stormy", SABER)
    assert hook.players[0].supply == supply(hook=1) and saber.players[0].supply == supply(saber=1)
    assert all(p.graveyard == () for p in saber.players)


def test_a_token_passed_by_the_thief_does_not_fire() -> None:
    """A Calm saber stolen by the Thief discards nothing."""
    state, _ = run(scenario(players={1: {"supply": supply(saber=1)}}, island=((0, 23), (2, 30))))
    assert state.players[0].supply == supply(saber=1) and state.players[2].graveyard == ()
