"""Rules versions of Verräter: each game is played, folded, viewed and snapshotted by the rules it began under,
whichever other versions the same process holds (ARCHITECTURE.md, "Rules versions")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.contract import fold
from engines.playout import play
from engines.registry import REGISTRY
from engines.rules import DataFile, RulesVersion, data_file
from engines.snapshot import StateCodec
from engines.verraeter import VERRAETER, Verraeter
from engines.verraeter.data import ROSE, load_rules, read_rules
from engines.verraeter.state import State
from engines.verraeter.versions import VERSIONS
from tests.engines.verraeter.helpers import (
    BUILDER,
    DIPLOMAT2,
    DIPLOMAT5,
    FARMER,
    TRAITOR,
    drafted,
    first,
    new_game,
    play_all,
)

ORIGINAL = data_file("engines.verraeter", "verraeter.json")
OLD_RIVER, NEW_RIVER = [7, 4, 3, 2, 2], [8, 5, 3, 2, 2]


def _corrected(tmp_path: Path) -> Verraeter:
    """``verraeter/2``: verraeter/1's data file copied and corrected (the river's VP table is ``NEW_RIVER``),
    read as a new rules version would read it."""
    raw = json.loads(ORIGINAL.content)
    (river,) = [t for t in raw["land_types"] if t["id"] == "river"]
    assert river["vp"] == OLD_RIVER
    river["vp"] = NEW_RIVER
    copy = tmp_path / "verraeter-2.json"
    copy.write_text(json.dumps(raw, indent=2, ensure_ascii=False), encoding="utf-8")
    data = DataFile("verraeter/verraeter-2.json", copy.read_bytes())
    return Verraeter(read_rules(RulesVersion.of("verraeter/2", (data,))))


def _river_conquered(game: Verraeter) -> State:
    """The rules' test vector under ``game``'s rules: Eagle river (5) against Rose village (10), no supply
    played, Diplomats held by Rose: Rose wins and its 2 seats each gain the river's VP for 2 winners."""
    state = drafted(new_game(4, game=game), 0, {0: BUILDER, 1: DIPLOMAT2, 2: FARMER, 3: DIPLOMAT5}, TRAITOR, game)
    after, events = play_all(state, {}, game)
    conflict = first(events, "conflict_resolved")
    assert conflict.winner == ROSE and conflict.winners == 2  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    return after


def test_versions_are_listed_oldest_first_and_the_newest_is_verraeter() -> None:
    """verraeter/1 reads the shipped verraeter.json; VERRAETER, what new games get, is the newest version."""
    assert [game.spec.rules_version for game in VERSIONS] == ["verraeter/1"]
    assert VERRAETER is VERSIONS[-1] is REGISTRY.get("verraeter", "verraeter/1")
    assert VERRAETER.rules.version.files == (ORIGINAL,)
    assert VERRAETER.rules.version.flags == ()


def test_a_corrected_copy_of_the_data_file_is_a_second_version_beside_the_first(tmp_path: Path) -> None:
    """A game started under verraeter/2 lists the corrected river table in its first event and its view, and
    scores it when the river is conquered, while games of verraeter/1 folded in the same process, before
    and after it, keep the old table."""
    second = _corrected(tmp_path)
    assert second.spec.rules_version == "verraeter/2" and VERRAETER.spec.rules_version == "verraeter/1"
    config = VERRAETER.spec.config(4)
    new_started = second.start(config, b"side by side")[0].game_started
    old_started = VERRAETER.start(config, b"side by side")[0].game_started
    assert new_started.rules_version == "verraeter/2" and old_started.rules_version == "verraeter/1"
    assert {t.id: list(t.vp) for t in new_started.land_types}["river"] == NEW_RIVER
    assert {t.id: list(t.vp) for t in old_started.land_types}["river"] == OLD_RIVER

    old_before = _river_conquered(VERRAETER)
    new = _river_conquered(second)
    old_after = _river_conquered(VERRAETER)
    assert old_before == old_after
    for game, state, river in ((second, new, NEW_RIVER), (VERRAETER, old_before, OLD_RIVER)):
        assert [p.vp for p in state.players] == [0, river[1], 0, river[1]]
        view = game.view(state, None)
        assert [list(t.vp) for t in view.land_types if t.id == "river"] == [river]
        assert [s.vp for s in view.seats] == [0, river[1], 0, river[1]]


def test_whole_games_of_both_versions_replay_by_their_own_rules(tmp_path: Path) -> None:
    """The same seed and moves under both versions (the VP table alters no legal move): no seat ends with
    less under verraeter/2, whose river is worth more, and some seat ends with more; folding each log
    again, one after the other in the same process, gives each game's own final state."""
    second = _corrected(tmp_path)
    config = VERRAETER.spec.config(4)
    old, new = play(VERRAETER, config, b"two versions 0"), play(second, config, b"two versions 0")
    assert [(m.seat, m.command) for m in old.moves] == [(m.seat, m.command) for m in new.moves]
    old_result, new_result = VERRAETER.result(old.state), second.result(new.state)
    assert old_result is not None and new_result is not None
    old_scores = {s.seat: s.score for s in old_result.standings}
    new_scores = {s.seat: s.score for s in new_result.standings}
    assert all(new_scores[seat] >= old_scores[seat] for seat in old_scores) and new_scores != old_scores
    assert fold(second, new.events) == new.state
    assert fold(VERRAETER, old.events) == old.state
    assert fold(second, new.events) == new.state


def test_each_state_carries_its_versions_rules_and_a_snapshot_gives_them_back(tmp_path: Path) -> None:
    """Every state holds the rules of the game object that folded its first event; a snapshot stores none
    of them, and the codec of each version puts that version's rules back, so every state round-trips."""
    second = _corrected(tmp_path)
    for game in (VERRAETER, second):
        codec = StateCodec(game.state_type, given={"rules": game.rules})
        playout = play(game, game.spec.config(5), b"snapshot per version")
        state = None
        for index, event in enumerate(playout.events):
            state = game.evolve(state, event)
            assert state.rules is game.rules
            if index % 25 == 0 or game.is_over(state):
                blob = codec.encode(state)
                assert b'"rules":' not in blob and b'"hand_limit":' not in blob
                decoded = codec.decode(blob)
                assert decoded == state and decoded.rules is game.rules
    assert [t.vp for t in second.rules.land_types if t.id == "river"] == [tuple(NEW_RIVER)]  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message


def test_a_broken_data_file_is_refused_with_the_entry_named() -> None:
    """A version whose data file is broken cannot be built: the sentence names the version, the file and the
    bad entry. So can a rule flag no Verräter version knows."""
    raw = json.loads(ORIGINAL.content)
    raw["lands"][3]["start"] = "lion"
    broken = DataFile("verraeter/verraeter-2.json", json.dumps(raw).encode())
    with pytest.raises(
        ValueError, match=r"^verraeter/2, verraeter/verraeter-2\.json: land forest-A: unknown type or starting house$"
    ):
        read_rules(RulesVersion.of("verraeter/2", (broken,)))
    with pytest.raises(ValueError, match=r"^verraeter/2: Verräter has no rule flag 'hand_limit'$"):
        load_rules("verraeter/2", flags={"hand_limit": "6"})
