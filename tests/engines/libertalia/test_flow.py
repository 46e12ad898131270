"""The course of a game: selection, island order, the Midshipman, end of voyage and end of game."""

from __future__ import annotations

from dataclasses import replace

from engines.contract import commit_seed, fold, step
from engines.libertalia.scoring import result
from engines.libertalia.state import Phase
from parlour.v1 import libertalia_pb2 as pb
from tests.engines.libertalia.helpers import (
    CHEST,
    MAP,
    RELIC,
    G,
    answer,
    kinds,
    legal,
    loot,
    run,
    scenario,
    select,
    supply,
)


def test_every_seat_with_cards_selects_secretly_and_one_event_reveals_all() -> None:
    """All seats are pending; a choice is redacted for others; the last choice reveals the island."""
    state = scenario(phase=Phase.SELECT, players={s: {"hand": (10, 20)} for s in range(3)})
    assert G.pending(state) == {0, 1, 2}
    state, events = answer(state, 1, select(20), stop_at=None)
    assert G.redact(events[0], 0).character_selected.rank == 0
    assert G.redact(events[0], 1).character_selected.rank == 20
    assert G.pending(state) == {0, 2} and G.view(state, 0).seats[1].has_selected
    assert G.view(state, 0).seats[1].selected == 0
    state, _ = answer(state, 0, select(10), stop_at=None)
    state, events = answer(state, 2, select(10))
    assert kinds(events)[1] == "characters_revealed"


def test_a_seat_with_an_empty_hand_skips_the_selection() -> None:
    """D19: only seats with cards must select."""
    state = scenario(phase=Phase.SELECT, players={0: {"hand": ()}, 1: {"hand": (5,)}, 2: {"hand": (6,)}})
    assert G.pending(state) == {1, 2} and legal(state, 0) == []


def test_equal_ranks_are_ordered_by_reputation_higher_to_the_right() -> None:
    """Three Bosuns: the highest reputation is rightmost."""
    state = scenario(
        phase=Phase.SELECT, players={s: {"hand": (21,)} for s in range(3)}, reputation=(2, 0, -1, 1, -1, -1)
    )
    for seat in (0, 1, 2):
        state, events = answer(state, seat, select(21))
    revealed = next(e.characters_revealed for e in events if e.WhichOneof("kind") == "characters_revealed")
    assert [c.seat for c in revealed.island] == [2, 0, 1]


def test_two_players_use_three_tokens_a_day_and_the_midshipman_at_20_5() -> None:
    """Two players: 3 tokens per day box; the Midshipman sits between ranks 20 and 21."""
    events = G.start(G.spec.config(2), b"two")
    assert events[0].game_started.midshipman
    assert all(len(box.tokens) == 3 for box in events[2].voyage_started.boxes)
    state = fold(G, events)
    state = replace(state, players=tuple(replace(p, hand=(20, 21)) for p in state.players))
    state, _ = answer(state, 0, select(21), stop_at=None)
    _, events = answer(state, 1, select(20))
    revealed = next(e.characters_revealed for e in events if e.WhichOneof("kind") == "characters_revealed")
    assert [(c.seat, c.rank) for c in revealed.island] == [(1, 20), (-1, 0), (0, 21)]


def test_midshipman_makes_the_other_player_return_a_token_before_its_left_neighbour_takes() -> None:
    """The seat whose card is left of the Midshipman takes from what the other seat left."""
    state = scenario(2, island=((1, 8), (-1, 0)), pool=(MAP, CHEST, RELIC), phase=Phase.DUSK, midshipman=True)
    state, _ = run(state, stop_at=Phase.NIGHT)
    assert state.prompt is not None and state.prompt.seat == 0
    assert state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_MIDSHIPMAN_RETURN
    state, _ = answer(state, 0, loot(CHEST), stop_at=Phase.NIGHT)
    assert sorted(state.pool) == [MAP, RELIC] and state.prompt is not None and state.prompt.seat == 1


def test_midshipman_leftmost_does_nothing() -> None:
    """No character to its left: no token is returned."""
    state = scenario(2, island=((-1, 0), (1, 30)), pool=(MAP,), phase=Phase.DUSK, midshipman=True)
    state, _ = run(state, stop_at=Phase.NIGHT)
    assert state.players[1].supply == supply(map=1)


def test_midshipman_is_never_discarded_by_the_brute() -> None:
    """A Brute with the Midshipman rightmost discards nothing."""
    state, _ = run(scenario(2, island=((0, 17), (-1, 0)), midshipman=True))
    assert [c.rank for c in state.island] == [17, 0]


def test_anchor_losses_cannot_be_dodged_by_order() -> None:
    """Quartermaster -6 and Preacher +6 from 0 doubloons bank 0, not 6."""
    state = scenario(players={0: {"ship": (7, 36)}}, phase=Phase.ANCHOR, turn=-1)
    _, events = run(state, stop_at=None)
    scores = next(e.voyage_scored for e in events if e.WhichOneof("kind") == "voyage_scored").scores
    assert (scores[0].anchor_net, scores[0].banked) == (0, 0)


def test_voyage_end_banks_doubloons_and_clears_ships_to_graveyards() -> None:
    """Doubloons go to the score dial; ship cards go to the graveyard; hands are kept."""
    state = scenario(players={0: {"ship": (8,), "doubloons": 9, "hand": (3, 40)}}, phase=Phase.ANCHOR, turn=-1)
    state, _ = run(state, stop_at=None)
    player = state.players[0]
    assert player.score == 9 and player.graveyard == (8,) and player.ship == () and 3 in player.hand


def test_hook_kept_characters_stay_in_the_ship_for_the_next_voyage() -> None:
    """The kept card survives cleanup; the other ship card is discarded."""
    from tests.engines.libertalia.helpers import character

    state = scenario(players={0: {"ship": (8, 21), "supply": supply(hook=1)}}, phase=Phase.ANCHOR, turn=-1)
    state, _ = run(state, stop_at=None)
    state, _ = answer(state, 0, character(0, 8), stop_at=None)
    assert state.voyage == 2 and state.players[0].ship == (8,) and state.players[0].graveyard == (21,)
    assert state.players[0].kept == ()


def test_stormy_maps_survive_the_voyage_and_other_loot_returns() -> None:
    """Stormy maps stay in the supply; the relic goes back to the bag."""
    state = scenario(board="stormy", players={0: {"supply": supply(map=2, relic=1)}}, phase=Phase.ANCHOR, turn=-1)
    state, _ = run(state, stop_at=None)
    assert state.players[0].supply == supply(map=2)


def test_calm_maps_return_to_the_bag() -> None:
    """Calm maps are cleaned up like every other token."""
    state = scenario(players={0: {"supply": supply(map=2)}}, phase=Phase.ANCHOR, turn=-1)
    state, _ = run(state, stop_at=None)
    assert state.players[0].supply == supply()


def test_each_voyage_deals_the_same_six_new_ranks_and_pays_reputation_income() -> None:
    """Voyage 2 deals 6 ranks not dealt before, to everyone, and pays 12..7 by space."""
    state = scenario(phase=Phase.ANCHOR, turn=-1, dealt=(1, 2, 3, 4, 5, 6))
    _, events = run(state, stop_at=None)
    started = next(e.voyage_started for e in events if e.WhichOneof("kind") == "voyage_started")
    assert len(set(started.ranks)) == 6 and not set(started.ranks) & {1, 2, 3, 4, 5, 6}
    assert list(started.income) == [12, 11, 10] and started.days == 5


def test_ties_on_score_go_to_the_reputation_furthest_right() -> None:
    """Equal scores: the seat further right on the track wins."""
    state = scenario(phase=Phase.OVER, reputation=(1, 0, 2, -1, -1, -1))
    state = replace(state, players=tuple(replace(p, score=30) for p in state.players))
    assert result(state).winners == (2,)


def test_the_last_event_reveals_the_committed_seed() -> None:
    """The game-over event carries the seed; the first event its commitment, without the seed for clients."""
    from engines.playout import play

    playout = play(G, G.spec.config(3), b"seed-check")
    first, last = playout.events[0], playout.events[-1]
    assert last.game_finished.seed == b"seed-check"
    assert first.game_started.seed_commitment == commit_seed(b"seed-check", first.game_started.rules_version)
    assert G.redact(first, 0).game_started.seed == b""
    assert G.redact(first, 0, finished=True).game_started.seed == b"seed-check"
    assert G.redact(playout.events[1], None).bag_filled.tokens == []
    assert G.redact(last, None).game_finished.seed == b"" and G.redact(last, None).game_finished.seed_salt == b""
    assert G.redact(playout.events[1], None, finished=True) == playout.events[1]  # public after the end


def test_spectators_see_no_hand() -> None:
    """A spectator's view has counts only."""
    state = scenario(phase=Phase.SELECT, players={0: {"hand": (5, 6), "graveyard": (9,)}})
    seat = G.view(state, None).seats[0]
    assert list(seat.hand) == [] and seat.hand_count == 2 and list(seat.graveyard) == [] and seat.graveyard_count == 1
    assert list(G.view(state, 0).seats[0].hand) == [5, 6]


def test_step_runs_through_the_contract() -> None:
    """The selection is a normal command for step()."""
    state = scenario(phase=Phase.SELECT)
    assert step(G, state, 0, select(40))


def test_hidden_scores_show_each_dial_to_its_owner_only_until_the_end() -> None:
    """With scores hidden, other seats' banked doubloons and dials are redacted and absent from the view."""
    state = scenario(players={1: {"doubloons": 8}}, phase=Phase.ANCHOR, turn=-1, hidden_scores=True)
    state, events = run(state, stop_at=None)
    scored = next(e for e in events if e.WhichOneof("kind") == "voyage_scored")
    assert G.redact(scored, 0).voyage_scored.scores[1].score == 0
    assert G.redact(scored, 1).voyage_scored.scores[1].score == 8
    assert G.redact(scored, 0, finished=True).voyage_scored.scores[1].score == 8
    assert G.view(state, 0).seats[1].score == 0 and G.view(state, 1).seats[1].score == 8


def test_public_scores_are_open_information() -> None:
    """By default every dial is public (D4)."""
    state = scenario(players={1: {"doubloons": 8}}, phase=Phase.ANCHOR, turn=-1)
    state, events = run(state, stop_at=None)
    scored = next(e for e in events if e.WhichOneof("kind") == "voyage_scored")
    assert G.redact(scored, 0).voyage_scored.scores[1].score == 8 and G.view(state, None).seats[1].score == 8


def test_middle_reputation_setup_puts_the_players_on_the_middle_spaces() -> None:
    """D3 option: two players take spaces 2 and 3, dummies the ends."""
    started = G.start(G.spec.config(2, {"reputation": "middle"}), b"m")[0].game_started
    assert list(started.reputation)[:2] == [-1, -1] and sorted(started.reputation[2:4]) == [0, 1]
    assert list(started.reputation)[4:] == [-1, -1]
