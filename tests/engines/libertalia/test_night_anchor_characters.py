"""Dusk, night and anchor abilities of the characters (rules 1.1, 3.4, 3.5, 4)."""

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
    ability,
    answer,
    kinds,
    legal,
    loot,
    reward,
    run,
    scenario,
    supply,
)


def night(players: dict[int, dict[str, object]], seats: int = 3, **fields: object) -> State:
    """A state at the start of night 1 of 2 with the given seats."""
    return scenario(seats, players=players, phase=Phase.NIGHT, turn=-1, **fields)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def anchor_scores(state: State) -> dict[int, int]:
    """Each seat's anchor net from the voyage_scored event of running the anchor."""
    _, events = run(state, stop_at=None)
    scored = next(e.voyage_scored for e in events if e.WhichOneof("kind") == "voyage_scored")
    return {s.seat: s.anchor_net for s in scored.scores}


def anchor(players: dict[int, dict[str, object]], seats: int = 3, **fields: object) -> State:
    """A state at the start of voyage 1's anchor."""
    return scenario(seats, players=players, phase=Phase.ANCHOR, turn=-1, **fields)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def test_barkeep_gains_one_at_night_and_one_per_barrel_at_anchor() -> None:
    """Night +1; anchor +1 per barrel (plus the Calm barrels' own +1 each)."""
    state, _ = run(night({0: {"ship": (8,)}}), stop_at=Phase.SELECT)
    assert state.players[0].doubloons == 1
    assert anchor_scores(anchor({0: {"ship": (8,), "supply": supply(barrel=2)}}))[0] == 4


def test_explorer_gains_reputation_for_a_map_at_dusk() -> None:
    """Taking a map with the Explorer gives +2 reputation; another token gives nothing."""
    state, _ = run(scenario(island=((0, 10),), pool=(MAP,), phase=Phase.DUSK), stop_at=Phase.NIGHT)
    other, _ = run(scenario(island=((0, 10),), pool=(CHEST,), phase=Phase.DUSK), stop_at=Phase.NIGHT)
    assert state.space(0) == 2 and other.space(0) == 0


def test_explorer_counts_one_map_twice_at_anchor() -> None:
    """Three maps with an Explorer score as four (two pairs, 14) instead of 12."""
    assert anchor_scores(anchor({0: {"ship": (10,), "supply": supply(map=3)}}))[0] == 14
    assert anchor_scores(anchor({0: {"ship": (10,)}}))[0] == 0


def test_carpenter_preacher_gambler_gain_at_anchor_and_quartermaster_loses() -> None:
    """Carpenter +10, Preacher +6, Gambler +6, Quartermaster -6."""
    assert anchor_scores(anchor({0: {"ship": (7, 11, 33, 36)}}))[0] == 16


def test_witch_copies_another_night_ability() -> None:
    """The Witch copying the Barkeep gains 1 more (order is asked: Witch first)."""
    state, _ = run(night({0: {"ship": (8, 15, 24)}}), stop_at=Phase.SELECT)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_ORDER
    state, _ = answer(state, 0, ability(15), stop_at=Phase.SELECT)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_WITCH_COPY
    from tests.engines.libertalia.helpers import character

    state, _ = answer(state, 0, character(0, 8), stop_at=Phase.SELECT)
    state, _ = answer(state, 0, ability(8), stop_at=Phase.SELECT)
    assert state.players[0].doubloons == 3  # Witch as Barkeep 1, Barkeep 1, Topman 4-3


def test_witch_copying_freed_prisoner_discards_the_witch() -> None:
    """Copy rule: the Witch gaining 3+ as the Freed Prisoner discards the Witch, not the Prisoner."""
    from tests.engines.libertalia.helpers import character

    state, _ = run(night({0: {"ship": (15, 20, 21, 22, 25)}}), stop_at=Phase.SELECT)
    state, _ = answer(state, 0, ability(15), stop_at=Phase.SELECT)
    state, _ = answer(state, 0, character(0, 20), stop_at=Phase.SELECT)
    assert 15 in state.players[0].graveyard and 20 in state.players[0].ship
    assert state.players[0].doubloons == 3


def test_witch_returns_to_hand_at_anchor_when_the_only_night_character() -> None:
    """A lone night Witch goes back to the hand; with another night character she stays."""
    alone, _ = run(anchor({0: {"ship": (15, 21)}}), stop_at=None)
    assert 15 in alone.players[0].hand
    company, _ = run(anchor({0: {"ship": (8, 15)}}), stop_at=None)
    assert 15 in company.players[0].graveyard


def test_mutineer_discards_the_lowest_ship_card_then_gains_two() -> None:
    """The lowest rank (here the Mutineer itself is not lowest) is discarded; +2."""
    state, _ = run(night({0: {"ship": (16, 3)}}), stop_at=Phase.SELECT)
    assert state.players[0].ship == (16,) and state.players[0].doubloons == 2


def test_mutineer_may_discard_itself() -> None:
    """As the lowest card the Mutineer discards itself and still gains 2."""
    state, _ = run(night({0: {"ship": (16, 30)}}), stop_at=Phase.SELECT)
    assert state.players[0].ship == (30,) and state.players[0].doubloons == 2


def test_mutineer_discarding_the_barkeep_first_cancels_its_night() -> None:
    """A card discarded before its own night ability does not resolve it."""
    state, _ = run(night({0: {"ship": (8, 16)}}), stop_at=Phase.SELECT)
    state, _ = answer(state, 0, ability(16), stop_at=Phase.SELECT)
    assert state.players[0].doubloons == 2 and state.queue == ()


def test_freed_prisoner_gains_per_high_rank_and_leaves_at_three() -> None:
    """Two high ranks: +2 and it stays; three: +3 and it is discarded."""
    stays, _ = run(night({0: {"ship": (20, 21, 30)}}), stop_at=Phase.SELECT)
    leaves, _ = run(night({0: {"ship": (20, 21, 30, 31)}}), stop_at=Phase.SELECT)
    assert stays.players[0].doubloons == 2 and 20 in stays.players[0].ship
    assert leaves.players[0].doubloons == 3 and 20 in leaves.players[0].graveyard


def test_brawler_gains_one_at_night() -> None:
    """The Brawler's night ability gives 1."""
    state, _ = run(night({0: {"ship": (22,)}}), stop_at=Phase.SELECT)
    assert state.players[0].doubloons == 1


def test_topman_gains_four_minus_ship_size() -> None:
    """Two cards: +2; five cards: -1 (stopping at 0)."""
    small, _ = run(night({0: {"ship": (24, 3)}}), stop_at=Phase.SELECT)
    big, _ = run(night({0: {"ship": (24, 3, 4, 5, 6)}}), stop_at=Phase.SELECT)
    assert small.players[0].doubloons == 2 and big.players[0].doubloons == 0


def test_armorer_reputation_at_dusk_and_coins_at_night() -> None:
    """A saber taken gives +2 reputation; at night +1 per saber and hook held."""
    state, _ = run(scenario(island=((0, 28),), pool=(SABER,), phase=Phase.DUSK), stop_at=Phase.NIGHT)
    state, _ = answer(state, 0, ability(28), stop_at=Phase.NIGHT)
    assert state.space(0) == 2
    rich, _ = run(night({0: {"ship": (28,), "supply": supply(saber=1, hook=2)}}), stop_at=Phase.SELECT)
    assert rich.players[0].doubloons == 3


def test_cook_takes_a_second_token_after_the_first() -> None:
    """The Cook's owner ends dusk with two tokens."""
    state, _ = run(scenario(island=((0, 26),), pool=(MAP, CHEST), phase=Phase.DUSK), stop_at=Phase.NIGHT)
    state, _ = answer(state, 0, loot(MAP), stop_at=Phase.NIGHT)
    assert state.players[0].supply == supply(map=1, chest=1)


def test_cook_with_an_empty_pool_takes_nothing_more() -> None:
    """One token for one Cook: nothing is left for the second take."""
    state, _ = run(scenario(island=((0, 26),), pool=(MAP,), phase=Phase.DUSK), stop_at=Phase.NIGHT)
    assert state.players[0].supply == supply(map=1) and state.players[0].ship == (26,)


def test_cook_with_a_barrel_lets_its_owner_choose_the_order() -> None:
    """Character and token dusk abilities both due: the owner chooses which first (D13)."""
    state, _ = run(scenario(island=((0, 26),), pool=(BARREL, MAP, MAP), phase=Phase.DUSK), stop_at=Phase.NIGHT)
    state, _ = answer(state, 0, loot(BARREL), stop_at=Phase.NIGHT)
    assert sorted((c.choose_ability.rank, c.choose_ability.loot) for c in legal(state, 0)) == [(0, 2), (26, 0)]


def test_treasurer_counts_barrels_amulets_and_chests() -> None:
    """One of each: Treasurer 3 + barrel 1 + amulet 3 + chest 5."""
    assert anchor_scores(anchor({0: {"ship": (32,), "supply": supply(barrel=1, amulet=1, chest=1)}}))[0] == 12


def test_aristocrat_alone_gains_five_shared_loses_three() -> None:
    """Two Aristocrats in two ships: both lose 3; a lone one gains 5."""
    assert anchor_scores(anchor({0: {"ship": (34,)}}))[0] == 5
    shared = anchor_scores(anchor({0: {"ship": (34,)}, 1: {"ship": (34,)}}))
    assert shared[0] == -3 and shared[1] == -3


def test_collector_scores_distinct_types() -> None:
    """Three distinct types give 3 (plus the tokens' own values)."""
    plain = anchor_scores(anchor({0: {"supply": supply(map=1, barrel=1, amulet=1)}}))[0]
    with_collector = anchor_scores(anchor({0: {"ship": (35,), "supply": supply(map=1, barrel=1, amulet=1)}}))[0]
    assert with_collector - plain == 3


def test_first_mate_gains_one_per_ship_character_at_anchor() -> None:
    """Three ship cards (First Mate included) give 3."""
    assert anchor_scores(anchor({0: {"ship": (38, 3, 4)}}))[0] == 3


def test_wind_nymph_alone_gains_two_clash_discards_every_nymph() -> None:
    """One Wind Nymph: +2; two in different ships: both are discarded."""
    alone, _ = run(night({0: {"ship": (37,)}}, nymphs=(0,)), stop_at=Phase.SELECT)
    assert alone.players[0].doubloons == 2
    clash = night({0: {"ship": (37,)}, 1: {"ship": (37,)}}, nymphs=(0, 1))
    after, _ = run(clash, stop_at=Phase.SELECT)
    assert after.players[0].graveyard == (37,) and after.players[1].graveyard == (37,)


def test_wind_nymph_snapshot_is_taken_when_the_night_begins() -> None:
    """The night phase event lists every seat with a Wind Nymph, the last dusk card included."""
    state = scenario(island=((0, 37),), pool=(), phase=Phase.DUSK, players={1: {"ship": (37,)}})
    _, events = run(state, stop_at=Phase.SELECT)
    started = [e.phase_started for e in events if e.WhichOneof("kind") == "phase_started"]
    assert list(started[0].wind_nymph_seats) == [0, 1]


def test_nothing_due_at_night_starts_the_next_day() -> None:
    """Ships without night abilities go straight to the next selection."""
    _, events = run(night({0: {"ship": (3,)}}), stop_at=None)
    assert kinds(events) == ["phase_started"]


def test_relic_and_hook_and_chest_values_calm_at_anchor() -> None:
    """Calm: relic -3, chest +5, amulet +3."""
    assert anchor_scores(anchor({0: {"supply": supply(relic=1, chest=1, amulet=1)}}))[0] == 5


def test_unused_helpers() -> None:
    """The helper constants name the loot types in order."""
    assert tuple(range(7)) == (MAP, BARREL, AMULET, CHEST, HOOK, SABER, RELIC)


def _order_options(state: State, seat: int) -> set[tuple[int, int]]:
    return {(c.choose_ability.rank, c.choose_ability.loot - 1) for c in legal(state, seat)}


def test_the_seat_orders_the_witchs_return_and_the_first_mates_count() -> None:
    """Rule 4.1, any order: First Mate first counts the Witch (3), Witch first leaves 2 to count."""
    state, _ = run(anchor({0: {"ship": (15, 38, 3)}}), stop_at=None)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_ORDER
    assert _order_options(state, 0) == {(15, -1), (38, -1)}
    nets = {}
    for first in (38, 15):
        after, _ = answer(state, 0, ability(first), stop_at=None)
        assert 15 in after.players[0].hand  # she returns either way
        nets[first] = after.players[0].score
    assert nets == {38: 3, 15: 2}


def test_the_seat_orders_a_stormy_barrel_and_its_own_amulets_reputation_move() -> None:
    """Barrel read before the amulet's +2 (third space from the left): 3; after it: 1."""
    state = anchor({0: {"supply": supply(barrel=1, amulet=1)}}, board="stormy", reputation=(1, 2, 0, -1, -1, -1))
    state, _ = run(state, stop_at=None)
    assert _order_options(state, 0) == {(0, BARREL), (0, AMULET)}
    barrel_first, _ = answer(state, 0, ability(kind=BARREL), stop_at=None)
    barrel_first, _ = answer(barrel_first, 0, reward(pb.LIBERTALIA_REWARD_REPUTATION), stop_at=None)
    amulet_first, _ = answer(state, 0, ability(kind=AMULET), stop_at=None)
    amulet_first, _ = answer(amulet_first, 0, reward(pb.LIBERTALIA_REWARD_REPUTATION), stop_at=None)
    assert (barrel_first.players[0].score, amulet_first.players[0].score) == (3, 1)


def test_a_hook_waits_for_the_witchs_return() -> None:
    """A Calm hook cannot keep the Witch who returns to hand: she resolves first, without asking."""
    state, _ = run(anchor({0: {"ship": (15, 3), "supply": supply(hook=1)}}), stop_at=None)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_HOOK_KEEP
    assert 15 in state.players[0].hand
    assert [c.choose_character.rank for c in legal(state, 0) if c.HasField("choose_character")] == [3]


def test_seats_resolve_their_anchor_in_seat_order_so_a_barrel_reads_earlier_seats_moves() -> None:
    """The engine's decision where the rules are silent: seat 0's amulet move (space 2 to 4) pushes
    seat 1 from space 3 to 2 before seat 1's Stormy barrel is read, which then pays 3."""
    players = {0: {"supply": supply(amulet=1)}, 1: {"supply": supply(barrel=1)}}
    state, _ = run(anchor(players, board="stormy", reputation=(2, -1, 0, 1, -1, -1)), stop_at=None)
    assert state.prompt is not None and state.prompt.seat == 0
    after, _ = answer(state, 0, reward(pb.LIBERTALIA_REWARD_REPUTATION), stop_at=None)
    assert after.players[1].score == 3


def test_abilities_due_name_one_seat_each_and_come_in_its_turn() -> None:
    """Each EffectsQueued lists one seat's abilities, with that seat: seat 2's after seat 0's resolved."""
    _, events = run(night({0: {"ship": (8,)}, 2: {"ship": (22,)}}), stop_at=Phase.SELECT)
    queued = [(i, e.effects_queued) for i, e in enumerate(events) if e.WhichOneof("kind") == "effects_queued"]
    assert [q.seat for _, q in queued] == [0, 2]
    assert all({x.seat for x in q.effects} == {q.seat} for _, q in queued)
    first_resolved = next(i for i, e in enumerate(events) if e.WhichOneof("kind") == "effect_resolving")
    assert first_resolved < queued[1][0]


def test_abilities_due_at_anchor_name_one_seat_each_and_come_in_its_turn() -> None:
    """At anchor too: one EffectsQueued per seat with anchor abilities (here a hook each), naming that
    seat, and seat 2's comes only after seat 0's hook resolved."""
    players = {0: {"ship": (3,), "supply": supply(hook=1)}, 2: {"ship": (5,), "supply": supply(hook=1)}}
    state, events = run(anchor(players), stop_at=None)
    assert state.prompt is not None and state.prompt.seat == 0
    _, later = answer(
        state, 0, pb.LibertaliaCommand(choose_character=pb.LibertaliaChooseCharacter(seat=0, rank=3)), stop_at=None
    )
    events = events + later
    queued = [(i, e.effects_queued) for i, e in enumerate(events) if e.WhichOneof("kind") == "effects_queued"]
    assert [q.seat for _, q in queued] == [0, 2]
    assert all(q.effects and {x.seat for x in q.effects} == {q.seat} for _, q in queued)
    first_resolved = next(i for i, e in enumerate(events) if e.WhichOneof("kind") == "effect_resolving")
    assert queued[0][0] < first_resolved < queued[1][0]
