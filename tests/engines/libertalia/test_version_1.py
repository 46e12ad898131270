"""libertalia/1, reconstructed: the games the earlier release played verify under it, event for event, and
the rule paths where it differs from libertalia/2 (anchor netting, seats' abilities queued together)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from engines.contract import GameConfig, fold, step
from engines.errors import GameError
from engines.libertalia import LIBERTALIA_1, LIBERTALIA_2
from engines.libertalia.state import Phase, State
from engines.verify import LoggedEvent, verify_log
from parlour.v1 import libertalia_pb2 as pb
from tests.engines.libertalia.helpers import (
    AMULET,
    BARREL,
    HOOK,
    answer,
    character,
    kinds,
    reward,
    run,
    scenario,
    supply,
)

FIXTURES = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "libertalia-1").glob("*.json"))
V1 = LIBERTALIA_1


def _event(data: str) -> pb.LibertaliaEvent:
    return pb.LibertaliaEvent.FromString(base64.b64decode(data))


def _command(data: str) -> pb.LibertaliaCommand:
    return pb.LibertaliaCommand.FromString(base64.b64decode(data))


def _load(path: Path) -> tuple[dict[str, Any], GameConfig, bytes, list[LoggedEvent]]:
    fixture: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    config = V1.spec.config(fixture["seats"], fixture["options"])
    log = [LoggedEvent(i + 1, _event(e)) for i, e in enumerate(fixture["setup"])]
    for move in fixture["moves"]:
        for offset, event in enumerate(move["events"]):
            first = offset == 0
            seat, command = (move["seat"], _command(move["command"])) if first else (None, None)
            log.append(LoggedEvent(len(log) + 1, _event(event), seat, command))
    return fixture, config, fixture["seed"].encode(), log


def test_the_fixtures_cover_every_seat_count_and_option_value() -> None:
    """A dozen games: 2 to 6 seats, each board, both score policies, both reputation setups."""
    loaded = [json.loads(p.read_text(encoding="utf-8")) for p in FIXTURES]
    assert len(loaded) >= 12 and all(f["rules_version"] == "libertalia/1" for f in loaded)
    assert {f["seats"] for f in loaded} == {2, 3, 4, 5, 6}
    for option in V1.spec.options:
        assert {f["options"][option.name] for f in loaded} == set(option.allowed)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_game_of_the_earlier_release_verifies_under_libertalia_1(path: Path) -> None:
    """Every command re-decided by libertalia/1 gives exactly the logged events; the result is the one the
    earlier release gave; the seed commitment has no salt."""
    fixture, config, seed, log = _load(path)
    verdict = verify_log(V1, config, seed, log)
    assert verdict.ok, verdict.message
    result = V1.result(verdict.state)
    assert result is not None
    assert [[s.seat, s.score, s.rank] for s in result.standings] == fixture["result"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_libertalia_2_does_not_produce_the_events_of_a_libertalia_1_game(path: Path) -> None:
    """libertalia/2 reports the log as made by other rules; re-deciding its commands under libertalia/2
    (the rules version named in the first event aside) differs after the setup: an event or a refusal."""
    _, config, seed, log = _load(path)
    verdict = verify_log(LIBERTALIA_2, config, seed, log)
    assert not verdict.ok and "made by other rules" in verdict.message
    setup = LIBERTALIA_2.start(config, seed)
    assert [e.SerializeToString() for e in setup[1:]] == [x.event.SerializeToString() for x in log[1 : len(setup)]]
    state: State | None = fold(LIBERTALIA_2, setup)
    position, differs = len(setup), False
    while position < len(log) and not differs:
        entry = log[position]
        assert state is not None and entry.seat is not None
        try:
            events = step(LIBERTALIA_2, state, entry.seat, entry.command)
        except GameError:
            differs = True
            break
        logged = [x.event for x in log[position : position + len(events)]]
        differs = events != logged or (
            position + len(events) < len(log) and log[position + len(events)].command is None
        )
        state, position = fold(LIBERTALIA_2, events, state), position + len(events)
    assert differs


def test_the_fixtures_go_through_every_path_where_the_versions_differ() -> None:
    """Together the games queue several seats' night and anchor abilities in one event, return a lone night
    Witch to hand as the anchor begins, and net the First Mate and Stormy barrels at scoring."""
    seen: set[str] = set()
    for path in FIXTURES:
        _, _, _, log = _load(path)
        state: State | None = None
        for entry in log:
            event, kind = entry.event, entry.event.WhichOneof("kind")
            if kind == "effects_queued" and len({e.seat for e in event.effects_queued.effects}) > 1:
                seen.add(f"together {event.effects_queued.timing}")
            if kind == "character_moved" and state is not None and state.phase is Phase.ANCHOR:
                seen.add("witch returns" if event.character_moved.rank == 15 else "other anchor move")
            if kind == "voyage_scored" and state is not None:
                seen |= {"first mate" for p in state.players if 38 in p.ship}
                seen |= {"stormy barrel" for p in state.players if p.supply[BARREL] and state.stormy(BARREL)}
            state = V1.evolve(state, event)
    together = {f"together {t}" for t in (pb.LIBERTALIA_TIMING_NIGHT, pb.LIBERTALIA_TIMING_ANCHOR)}
    assert together | {"witch returns", "first mate", "stormy barrel"} <= seen
    assert "other anchor move" not in seen


def test_the_golden_transcript_is_the_earlier_releases() -> None:
    """tests/golden/libertalia-1.txt begins like the transcript the earlier release pinned (its first event
    names libertalia/1 and carries the commitment without salt)."""
    golden = Path(__file__).resolve().parents[2] / "golden" / "libertalia-1.txt"
    first = golden.read_text(encoding="utf-8").splitlines()[:2]
    assert first[0] == "# libertalia/1 seats=6 seed=golden" and 'rules_version: "libertalia/1"' in first[1]
    assert "seed_salt" not in first[1]


# --- the rule paths of libertalia/1 ------------------------------------------------------------------------


def night(players: dict[int, dict[str, object]], seats: int = 3, **fields: object) -> State:
    """A libertalia/1 state at the start of night 1 of 2."""
    return scenario(seats, players=players, phase=Phase.NIGHT, turn=-1, game=V1, **fields)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def anchor(players: dict[int, dict[str, object]], seats: int = 3, **fields: object) -> State:
    """A libertalia/1 state at the start of voyage 1's anchor."""
    return scenario(seats, players=players, phase=Phase.ANCHOR, turn=-1, game=V1, **fields)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def _scored(events: list[pb.LibertaliaEvent]) -> dict[int, int]:
    scored = next(e.voyage_scored for e in events if e.WhichOneof("kind") == "voyage_scored")
    return {s.seat: s.anchor_net for s in scored.scores}


def test_every_seats_night_abilities_are_queued_in_one_event_naming_the_last_seat() -> None:
    """turns=together: seats 0 and 2 have night abilities; one EffectsQueued lists both and names seat 2
    (the last seat), and they resolve seat 0's first."""
    state, events = run(night({0: {"ship": (8,)}, 2: {"ship": (22,)}}), stop_at=Phase.SELECT)
    queued = [e.effects_queued for e in events if e.WhichOneof("kind") == "effects_queued"]
    assert len(queued) == 1 and queued[0].seat == 2
    assert [(x.seat, x.rank) for x in queued[0].effects] == [(0, 8), (2, 22)]
    resolving = [e.effect_resolving.effect.seat for e in events if e.WhichOneof("kind") == "effect_resolving"]
    assert resolving == [0, 2] and state.players[0].doubloons == 1 and state.players[2].doubloons == 1


def test_every_seats_anchor_choices_are_queued_in_one_event_and_resolved_seat_by_seat() -> None:
    """turns=together at anchor: both seats' hooks in one EffectsQueued naming seat 2; seat 0 chooses
    first, then seat 2, then the voyage is scored."""
    players: dict[int, dict[str, object]] = {
        0: {"ship": (3,), "supply": supply(hook=1)},
        2: {"ship": (5,), "supply": supply(hook=1)},
    }
    state, events = run(anchor(players), stop_at=None)
    queued = [e.effects_queued for e in events if e.WhichOneof("kind") == "effects_queued"]
    assert [(q.seat, [x.seat for x in q.effects]) for q in queued] == [(2, [0, 2])]
    assert state.prompt is not None and (state.prompt.seat, state.prompt.kind) == (
        0,
        pb.LIBERTALIA_CHOICE_KIND_HOOK_KEEP,
    )
    state, later = answer(state, 0, character(0, 3), stop_at=None)
    assert "effects_queued" not in kinds(later)
    assert state.prompt is not None and state.prompt.seat == 2
    state, later = answer(state, 2, reward(pb.LIBERTALIA_REWARD_DOUBLOONS), stop_at=None)
    assert "voyage_scored" in kinds(later) and state.voyage == 2 and state.players[0].ship == (3,)


def test_a_lone_night_witch_returns_as_the_anchor_begins_and_the_first_mate_counts_what_is_left() -> None:
    """anchor=netted: the Witch goes back to the hand before anything is queued (no EffectResolving, no
    choice) and the First Mate, netted at scoring, counts the two cards left, not three."""
    _, events = run(anchor({0: {"ship": (15, 38, 3)}}), stop_at=None)
    assert kinds(events)[:2] == ["character_moved", "voyage_scored"]
    moved = events[0].character_moved
    assert (moved.rank, moved.from_place, moved.to_place) == (15, pb.LIBERTALIA_PLACE_SHIP, pb.LIBERTALIA_PLACE_HAND)
    assert _scored(events)[0] == 2


def test_a_hook_cannot_keep_the_witch_who_returned_as_the_anchor_began() -> None:
    """The Witch's return precedes the hook's choice (rule 4.1): only the other ship card can be kept."""
    state, _ = run(anchor({0: {"ship": (15, 3), "supply": supply(hook=1)}}), stop_at=None)
    assert 15 in state.players[0].hand
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_HOOK_KEEP
    options = [c.choose_character.rank for c in V1.legal_commands(state, 0) if c.HasField("choose_character")]
    assert options == [3]


def test_a_stormy_barrel_is_netted_on_the_track_as_the_amulets_left_it() -> None:
    """anchor=netted: no order is offered; the amulet's +2 (space 2 to 4) is chosen first and the barrel,
    read at scoring, pays 1 (libertalia/2 lets the seat read it first for 3)."""
    state = anchor({0: {"supply": supply(barrel=1, amulet=1)}}, board="stormy", reputation=(1, 2, 0, -1, -1, -1))
    state, _ = run(state, stop_at=None)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_AMULET_REWARD
    state, events = answer(state, 0, reward(pb.LIBERTALIA_REWARD_REPUTATION), stop_at=None)
    assert state.players[0].score == 1 and _scored(events)[0] == 1
    assert not any(e.WhichOneof("kind") == "anchor_reward" and e.anchor_reward.loot == BARREL + 1 for e in events)


def test_a_stormy_barrel_of_a_later_seat_reads_the_track_after_every_seats_amulet() -> None:
    """Seat 0's amulet (space 2 to 4) pushes seat 1 from space 3 to 2; seat 1's barrel, netted, pays 3."""
    players: dict[int, dict[str, object]] = {0: {"supply": supply(amulet=1)}, 1: {"supply": supply(barrel=1)}}
    state, _ = run(anchor(players, board="stormy", reputation=(2, -1, 0, 1, -1, -1)), stop_at=None)
    after, _ = answer(state, 0, reward(pb.LIBERTALIA_REWARD_REPUTATION), stop_at=None)
    assert after.players[1].score == 3


def test_the_anchor_choices_are_asked_one_after_another_without_an_order_choice() -> None:
    """Uncharted with a Stormy amulet and a Calm hook: both are choices, resolved as queued (loot order:
    the amulet, then the hook), never asked to be ordered."""
    state = anchor({0: {"ship": (3,), "supply": supply(hook=1, amulet=1)}}, sides=(0, 0, 1, 0, 0, 0, 0))
    state, events = run(state, stop_at=None)
    queued = next(e.effects_queued for e in events if e.WhichOneof("kind") == "effects_queued")
    assert [x.loot - 1 for x in queued.effects] == [AMULET, HOOK]
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_AMULET_REWARD
    state, _ = answer(state, 0, reward(pb.LIBERTALIA_REWARD_DOUBLOONS), stop_at=None)
    assert state.prompt is not None and state.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_HOOK_KEEP
    state, events = answer(state, 0, character(0, 3), stop_at=None)
    assert _scored(events)[0] == 4 and state.players[0].ship == (3,)
