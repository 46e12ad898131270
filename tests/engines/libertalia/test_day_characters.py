"""Daytime abilities of the characters (rules 1.1), one scenario each, including "nothing happens" cases."""

from __future__ import annotations

from engines.libertalia.state import Phase
from parlour.v1 import libertalia_pb2 as pb
from tests.engines.libertalia.helpers import (
    BARREL,
    HOOK,
    MAP,
    RELIC,
    SABER,
    answer,
    character,
    kinds,
    legal,
    loot,
    run,
    scenario,
    supply,
)


def test_scout_discards_itself_and_places_a_hand_card_that_then_acts() -> None:
    """The Scout goes to the graveyard and the chosen hand card joins the island, acting in its turn."""
    state = scenario(players={0: {"hand": (29, 40)}}, island=((0, 1), (1, 20)))
    state, _ = run(state)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_SCOUT_PLACE
    assert 1 in state.players[0].graveyard
    state, _ = answer(state, 0, character(0, 29))
    assert [(c.seat, c.rank) for c in state.island] == [(1, 20), (0, 29)]
    assert state.players[0].doubloons == 5  # the Infantry it placed was rightmost
    assert state.players[0].hand == (40,)


def test_scout_with_empty_hand_only_discards() -> None:
    """A Scout whose owner has no hand card is discarded and nothing else happens."""
    state, _ = run(scenario(players={0: {"hand": ()}}, island=((0, 1),)))
    assert state.players[0].graveyard == (1,) and state.island == () and state.prompt is None


def test_apprentice_copies_a_ship_day_ability_as_itself() -> None:
    """The Apprentice copying Infantry gains 5 only because the Apprentice itself is rightmost."""
    state, _ = run(scenario(players={0: {"ship": (29, 8)}}, island=((1, 4), (0, 2))))
    assert state.players[0].doubloons == 5


def test_apprentice_copying_cabin_boy_still_takes_loot_at_dusk() -> None:
    """Only the copied day part is used: the Apprentice is not a Cabin Boy at dusk."""
    state, _ = run(scenario(players={0: {"ship": (5,)}}, island=((0, 2),), pool=(MAP,)), stop_at=Phase.NIGHT)
    assert state.players[0].doubloons == 3 and state.players[0].supply[MAP] == 1


def test_apprentice_copying_scout_discards_the_apprentice() -> None:
    """Copy rule: "discard the Scout" discards the Apprentice; the copied Scout stays in the ship."""
    state, _ = run(scenario(players={0: {"ship": (1,), "hand": (30, 40)}}, island=((0, 2),)))
    assert state.players[0].graveyard == (2,) and state.players[0].ship == (1,)


def test_apprentice_with_no_day_ability_in_ship_does_nothing() -> None:
    """No copy target: no choice and no effect."""
    state, events = run(scenario(players={0: {"ship": (8, 15)}}, island=((0, 2),)))
    assert kinds(events) == ["character_acts", "phase_started"] and state.players[0].doubloons == 0


def test_apprentice_lets_its_owner_choose_among_several_abilities() -> None:
    """With two day abilities in the ship the owner is asked which one to copy."""
    state, _ = run(scenario(players={0: {"ship": (29, 36)}}, island=((0, 2),)))
    assert [c.choose_character.rank for c in legal(state, 0)] == [29, 36]


def test_beggar_takes_two_doubloons_from_the_rightmost_owner_who_gains_reputation() -> None:
    """The rightmost card's owner pays 2 and moves 1 space right."""
    state, _ = run(scenario(players={1: {"doubloons": 5}}, island=((0, 3), (1, 20))))
    assert (state.players[0].doubloons, state.players[1].doubloons) == (2, 3)
    assert state.space(1) == 2


def test_beggar_takes_all_when_the_owner_has_less_than_two() -> None:
    """An owner with 1 doubloon gives just that one."""
    state, _ = run(scenario(players={1: {"doubloons": 1}}, island=((0, 3), (1, 20))))
    assert (state.players[0].doubloons, state.players[1].doubloons) == (1, 0)


def test_beggar_rightmost_itself_gains_only_reputation() -> None:
    """When the Beggar is rightmost its owner gains +1 reputation and no coins move."""
    state, _ = run(scenario(island=((0, 3),)))
    assert state.players[0].doubloons == 0 and state.space(0) == 1


def test_beggar_with_the_midshipman_rightmost_does_nothing() -> None:
    """The neutral Midshipman never gives anything."""
    _, events = run(scenario(2, island=((0, 3), (-1, 0)), midshipman=True))
    assert "doubloons_changed" not in kinds(events) and "reputation_moved" not in kinds(events)


def test_innkeeper_returns_a_ship_character_to_hand() -> None:
    """The chosen ship card goes back to the hand."""
    state, _ = run(scenario(players={0: {"ship": (8, 21)}}, island=((0, 4),)))
    state, _ = answer(state, 0, character(0, 21))
    assert 21 in state.players[0].hand and state.players[0].ship == (8,)


def test_cabin_boy_gains_three_only_when_leftmost() -> None:
    """Leftmost: +3; not leftmost: nothing."""
    first, _ = run(scenario(island=((0, 5), (1, 9))))
    second, _ = run(scenario(island=((1, 4), (0, 5))))
    assert first.players[0].doubloons == 3 and second.players[0].doubloons == 0


def test_cabin_boy_takes_no_loot_at_dusk_but_goes_to_the_ship() -> None:
    """At dusk the Cabin Boy skips the loot and still reaches the ship."""
    state, _ = run(scenario(island=((0, 5),), pool=(MAP, MAP, MAP)), stop_at=Phase.NIGHT)
    assert state.players[0].supply[MAP] == 0 and state.players[0].ship == (5,)


def test_bandit_moves_to_the_leftmost_space_and_gains_one_per_space() -> None:
    """From space 2 the Bandit gains 2 and is leftmost; the others slide right."""
    state, _ = run(scenario(island=((2, 6),)))
    assert state.reputation[:3] == (2, 0, 1) and state.players[2].doubloons == 2


def test_preacher_keeps_one_token_and_gains_reputation_per_token_returned() -> None:
    """Two tokens returned to the bag give +2 reputation."""
    state, _ = run(scenario(players={0: {"supply": supply(map=2, relic=1)}}, island=((0, 7),)))
    bag = sum(state.bag)
    state, _ = answer(state, 0, loot(MAP, 0))
    assert state.players[0].supply == supply(map=1) and state.space(0) == 2 and sum(state.bag) == bag + 2


def test_preacher_without_loot_does_nothing() -> None:
    """No loot: no choice, no reputation."""
    _, events = run(scenario(island=((0, 7),)))
    assert kinds(events) == ["character_acts", "phase_started"]


def test_stowaway_draws_a_token_and_is_discarded() -> None:
    """One token leaves the bag for the supply and the Stowaway is in the graveyard."""
    state = scenario(island=((0, 9),))
    after, _ = run(state)
    assert after.players[0].loot_count == 1 and sum(after.bag) == sum(state.bag) - 1
    assert after.players[0].graveyard == (9,) and after.draws == state.draws + 1


def test_stowaway_with_an_empty_bag_gets_nothing() -> None:
    """An empty bag gives nothing; the Stowaway is still discarded."""
    state, _ = run(scenario(island=((0, 9),), bag=(0,) * 7))
    assert state.players[0].loot_count == 0 and state.players[0].graveyard == (9,)


def test_carpenter_loses_half_rounded_down() -> None:
    """11 doubloons become 6."""
    state, _ = run(scenario(players={0: {"doubloons": 11}}, island=((0, 11),)))
    assert state.players[0].doubloons == 6


def test_officer_tops_up_to_twelve_or_gains_reputation() -> None:
    """Below 12 the Officer fills up to 12; at 12 or more it gives +2 reputation instead."""
    poor, _ = run(scenario(players={0: {"doubloons": 4}}, island=((0, 12),)))
    rich, _ = run(scenario(players={0: {"doubloons": 12}}, island=((0, 12),)))
    assert poor.players[0].doubloons == 12 and poor.space(0) == 0
    assert rich.players[0].doubloons == 12 and rich.space(0) == 2


def test_smuggler_takes_a_pool_token_fires_it_and_moves_to_the_ship() -> None:
    """A Calm barrel taken by the Smuggler gives +1 reputation; the Smuggler is in the ship at once."""
    state, _ = run(scenario(island=((0, 13),), pool=(BARREL, MAP)))
    state, _ = answer(state, 0, loot(BARREL))
    assert state.players[0].ship == (13,) and state.players[0].supply[BARREL] == 1 and state.space(0) == 1
    assert state.pool == (MAP,)


def test_smuggler_with_an_empty_pool_still_moves_to_the_ship() -> None:
    """No token: the Smuggler goes straight to the ship anyway."""
    state, _ = run(scenario(island=((0, 13),)))
    assert state.players[0].ship == (13,) and state.island == ()


def test_bodyguard_returns_sabers_and_hooks_for_two_each() -> None:
    """A saber and a hook leave the pool; the Bodyguard's owner gains 4."""
    state, _ = run(scenario(island=((0, 14),), pool=(SABER, HOOK, MAP)))
    assert state.pool == (MAP,) and state.players[0].doubloons == 4


def test_brute_discards_the_rightmost_character_whose_owner_gains_reputation() -> None:
    """The rightmost card is discarded before it acts; its owner moves 1 right."""
    state, _ = run(scenario(island=((0, 17), (1, 29))))
    assert state.players[1].graveyard == (29,) and state.players[1].doubloons == 0 and state.space(1) == 2


def test_brute_rightmost_discards_itself() -> None:
    """D16: a rightmost Brute discards itself."""
    state, _ = run(scenario(island=((1, 4), (0, 17))))
    assert state.players[0].graveyard == (17,)


def test_gunner_discards_an_opponent_ship_card_and_loses_reputation() -> None:
    """Hitting an opponent costs the Gunner's owner 1 reputation."""
    state, _ = run(scenario(players={0: {"ship": (8,)}, 1: {"ship": (21,)}}, island=((2, 18),)))
    state, _ = answer(state, 2, character(1, 21))
    assert state.players[1].graveyard == (21,) and state.space(2) == 1


def test_gunner_forced_onto_its_own_ship_gains_reputation() -> None:
    """Only its own ship holds a card: it is discarded and the owner gains +1 reputation."""
    state, _ = run(scenario(players={0: {"ship": (8,)}}, island=((0, 18),)))
    assert state.players[0].graveyard == (8,) and state.space(0) == 1


def test_gunner_with_every_ship_empty_does_nothing() -> None:
    """No target: nothing happens."""
    _, events = run(scenario(island=((0, 18),)))
    assert kinds(events) == ["character_acts", "phase_started"]


def test_necromancer_spends_a_relic_to_raise_a_graveyard_card() -> None:
    """A relic returns to the bag and the chosen graveyard card enters the ship."""
    state, _ = run(scenario(players={0: {"supply": supply(relic=1), "graveyard": (8, 11)}}, island=((0, 19),)))
    state, _ = answer(state, 0, character(0, 11))
    assert state.players[0].ship == (11,) and state.players[0].supply[RELIC] == 0


def test_necromancer_without_relic_or_graveyard_does_nothing() -> None:
    """D15: both a relic and a graveyard card are needed."""
    no_relic, _ = run(scenario(players={0: {"graveyard": (8,)}}, island=((0, 19),)))
    no_grave, _ = run(scenario(players={0: {"supply": supply(relic=1)}}, island=((0, 19),)))
    assert no_relic.players[0].ship == () and no_grave.players[0].supply[RELIC] == 1


def test_bosun_gains_two_per_ship_card_below_21() -> None:
    """Ranks 3 and 20 count, 22 does not."""
    state, _ = run(scenario(players={0: {"ship": (3, 20, 22)}}, island=((0, 21),)))
    assert state.players[0].doubloons == 4


def test_brawler_discards_an_opponent_brawler_for_two_reputation() -> None:
    """An opponent's Brawler in a ship is discarded; the owner gains +2."""
    state, _ = run(scenario(players={1: {"ship": (22,)}}, island=((0, 22),)))
    assert state.players[1].graveyard == (22,) and state.space(0) == 2


def test_brawler_without_an_opponent_brawler_does_nothing() -> None:
    """No opposing Brawler: no reputation."""
    state, _ = run(scenario(island=((0, 22),)))
    assert state.space(0) == 0


def test_thief_takes_a_neighbours_token_without_firing_it_and_loses_reputation() -> None:
    """A stolen barrel gives no reputation; the Thief's owner loses 2 spaces."""
    state, _ = run(scenario(players={1: {"supply": supply(barrel=1)}}, island=((2, 23),)))
    assert state.players[2].supply[BARREL] == 1 and state.space(2) == 0


def test_thief_with_no_neighbour_loot_loses_nothing() -> None:
    """No loot to steal: no reputation loss (seat 3 of 4 is no neighbour of seat 1)."""
    state, _ = run(scenario(4, players={3: {"supply": supply(map=1)}}, island=((1, 23),)))
    assert state.space(1) == 1 and state.players[3].supply[MAP] == 1


def test_recruiter_puts_a_hand_card_into_the_ship() -> None:
    """The recruited card is in the ship, not on the island."""
    state, _ = run(scenario(players={0: {"hand": (8, 40)}}, island=((0, 25),)))
    state, _ = answer(state, 0, character(0, 8))
    assert state.players[0].ship == (8,) and state.players[0].hand == (40,)


def test_watchman_swaps_a_pool_token_with_the_next_days_box() -> None:
    """One map from today and one chest from tomorrow change places."""
    state, _ = run(scenario(island=((0, 27),), pool=(MAP,), later=(3,)))
    assert state.boxes == ((3,), (MAP,))


def test_watchman_on_the_last_day_does_nothing() -> None:
    """The last day has no next box."""
    _, events = run(scenario(island=((0, 27),), pool=(MAP,), days=1, boxes=((MAP,),)))
    assert "loot_moved" not in kinds(events)


def test_infantry_gains_five_only_when_rightmost() -> None:
    """Rightmost: +5; otherwise nothing."""
    right, _ = run(scenario(island=((1, 4), (0, 29))))
    left, _ = run(scenario(island=((0, 29), (1, 30))))
    assert right.players[0].doubloons == 5 and left.players[0].doubloons == 0


def test_merchant_sells_n_tokens_of_a_type_for_n_squared() -> None:
    """Three maps sold give 9."""
    state, _ = run(scenario(players={0: {"supply": supply(map=3, relic=1)}}, island=((0, 30),)))
    options = [(c.choose_loot.loot, c.choose_loot.count) for c in legal(state, 0)]
    assert options == [(1, 1), (1, 2), (1, 3), (7, 1)]
    state, _ = answer(state, 0, loot(MAP, 0, 3))
    assert state.players[0].doubloons == 9 and state.players[0].supply == supply(relic=1)


def test_merchant_without_loot_does_nothing() -> None:
    """Nothing held: nothing sold."""
    _, events = run(scenario(island=((0, 30),)))
    assert kinds(events) == ["character_acts", "phase_started"]


def test_surgeon_returns_a_graveyard_card_to_hand_hidden_from_others() -> None:
    """The card moves to the hand; other seats see the move without its rank."""
    state, _ = run(scenario(players={0: {"graveyard": (7, 11)}}, island=((0, 31),)))
    state, events = answer(state, 0, character(0, 11))
    moved = next(e for e in events if e.WhichOneof("kind") == "character_moved")
    assert 11 in state.players[0].hand
    from engines.libertalia import LIBERTALIA

    assert LIBERTALIA.redact(moved, 1).character_moved.rank == 0
    assert LIBERTALIA.redact(moved, 0).character_moved.rank == 11


def test_gambler_loses_one_per_token() -> None:
    """Three tokens cost 3."""
    state, _ = run(scenario(players={0: {"doubloons": 5, "supply": supply(map=2, relic=1)}}, island=((0, 33),)))
    assert state.players[0].doubloons == 2


def test_aristocrat_gains_two_reputation() -> None:
    """The Aristocrat moves its owner 2 spaces right."""
    state, _ = run(scenario(island=((0, 34),)))
    assert state.space(0) == 2


def test_quartermaster_gains_one_per_token() -> None:
    """Two tokens give 2."""
    state, _ = run(scenario(players={0: {"supply": supply(map=1, chest=1)}}, island=((0, 36),)))
    assert state.players[0].doubloons == 2


def test_first_mate_loses_one_per_ship_character() -> None:
    """Three ship cards cost 3, stopping at 0."""
    state, _ = run(scenario(players={0: {"doubloons": 2, "ship": (3, 4, 8)}}, island=((0, 38),)))
    assert state.players[0].doubloons == 0


def test_captain_moves_rightmost_and_pays_one_per_space() -> None:
    """From space 0 to space 5 costs 5."""
    state, _ = run(scenario(players={0: {"doubloons": 7}}, island=((0, 39),)))
    assert state.space(0) == 5 and state.players[0].doubloons == 2


def test_governor_discards_the_whole_ship_for_reputation() -> None:
    """Two ship cards discarded give +2 reputation."""
    state, _ = run(scenario(players={0: {"ship": (8, 20)}}, island=((0, 40),)))
    assert state.players[0].ship == () and state.players[0].graveyard == (8, 20) and state.space(0) == 2


def test_innkeeper_recruiter_and_surgeon_with_nothing_to_choose_do_nothing() -> None:
    """An empty ship, hand or graveyard means no choice and no effect."""
    for rank, who in ((4, {"ship": ()}), (25, {"hand": ()}), (31, {"graveyard": ()})):
        state, events = run(scenario(players={0: who}, island=((0, rank),)))
        assert kinds(events) == ["character_acts", "phase_started"] and state.prompt is None


def test_bodyguard_without_sabers_or_hooks_gains_nothing() -> None:
    """No saber or hook in the pool: nothing returned, nothing gained."""
    state, _ = run(scenario(island=((0, 14),), pool=(MAP, RELIC)))
    assert state.players[0].doubloons == 0 and len(state.pool) == 2
