"""Rules versions of Old Men of the Forest: each game is played, folded, viewed and snapshotted by the rules it
began under, whichever other versions the same process holds (ARCHITECTURE.md, "Rules versions")."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from engines.contract import fold
from engines.oldmen import OLDMEN, OldMen
from engines.oldmen.data import load_rules, read_rules
from engines.oldmen.state import State
from engines.oldmen.versions import VERSIONS
from engines.playout import play
from engines.registry import REGISTRY
from engines.rules import DataFile, RulesVersion, data_file
from engines.snapshot import StateCodec
from tests.engines.oldmen.helpers import ALL_ORANGUTANS, decline, fill_hands, play_trick, run, save, setup, take

ORIGINAL = data_file("engines.oldmen", "orangutans.json")


def _corrected(tmp_path: Path, vp: int) -> OldMen:
    """``oldmen/2``: oldmen/1's data file copied and corrected (orangutan O01 is worth ``vp`` VP), read as
    a new rules version would read it."""
    raw = json.loads(ORIGINAL.content)
    (entry,) = [o for o in raw["orangutans"] if o["id"] == "O01"]
    entry["vp"] = vp
    copy = tmp_path / "orangutans-2.json"
    copy.write_text(json.dumps(raw, indent=2), encoding="utf-8")
    return OldMen(read_rules(RulesVersion.of("oldmen/2", (DataFile("oldmen/orangutans-2.json", copy.read_bytes()),))))


def _last_round(game: OldMen) -> State:
    """Round 10 of a single game under ``game``'s rules: seat 0 wins the trick, takes seat 1's yellow 9 and
    can save O01 (1 yellow) with it."""
    order = ("O01", *[o for o in ALL_ORANGUTANS if o != "O01"])
    hands = fill_hands(3, {0: ["yellow 10"], 1: ["yellow 9"], 2: ["red 1"]}, size=1)
    state = setup(hands, order=order, game=game)
    state, _ = play_trick(replace(state, round=10), "yellow 10", "yellow 9", "red 1", game=game)
    return state


def _save_o01(game: OldMen, state: State) -> State:
    """Seat 0 takes the yellow 9 and saves O01 with it; seat 1 takes the red 1 and declines: the game ends."""
    state, _ = run(state, [(0, take(1)), (1, take(2)), (0, save("O01")), (1, decline())], game)
    return state


def test_versions_are_listed_oldest_first_and_the_newest_is_oldmen(tmp_path: Path) -> None:
    """oldmen/1 reads the shipped orangutans.json; OLDMEN, what new games get, is the newest version."""
    assert [game.spec.rules_version for game in VERSIONS] == ["oldmen/1"]
    assert OLDMEN is VERSIONS[-1] is REGISTRY.get("oldmen", "oldmen/1")
    assert OLDMEN.rules.version.files == (ORIGINAL,)
    assert OLDMEN.rules.version.flags == ()


def test_a_corrected_copy_of_the_data_file_is_a_second_version_beside_the_first(tmp_path: Path) -> None:
    """A game started under oldmen/2 lists and scores the corrected VP in its events, its view and its
    result, while games of oldmen/1 folded in the same process, before and after it, keep the old VP."""
    second = _corrected(tmp_path, vp=5)
    assert second.spec.rules_version == "oldmen/2" and OLDMEN.spec.rules_version == "oldmen/1"
    config = OLDMEN.spec.config(3)
    new_started = second.start(config, b"side by side")[0].game_started
    old_started = OLDMEN.start(config, b"side by side")[0].game_started
    assert new_started.rules_version == "oldmen/2" and old_started.rules_version == "oldmen/1"
    assert {o.id: o.vp for o in new_started.orangutans}["O01"] == 5
    assert {o.id: o.vp for o in old_started.orangutans}["O01"] == 3

    old_before = _last_round(OLDMEN)
    new = _save_o01(second, _last_round(second))
    old = _save_o01(OLDMEN, old_before)
    old_after = _save_o01(OLDMEN, _last_round(OLDMEN))
    assert old == old_after
    for game, state, vp in ((second, new, 5), (OLDMEN, old, 3), (OLDMEN, old_after, 3)):
        assert game.is_over(state)
        view = game.view(state, None)
        assert [o.vp for o in view.orangutans if o.id == "O01"] == [vp]
        assert [(s.orangutan_id, s.vp) for s in view.seats[0].saved] == [("O01", vp)]
        assert view.seats[0].score == vp and view.seats[1].score == -1
        result = game.result(state)
        assert result is not None and result.standings[0].seat == 0 and result.standings[0].score == vp


def test_whole_games_of_both_versions_replay_by_their_own_rules(tmp_path: Path) -> None:
    """The same seed and moves under both versions (the VP change alters no legal move): the seat that saved
    O01 ends 2 points higher under oldmen/2 and every other score is the same; folding each log again, one
    after the other in the same process, gives each game's own final state."""
    second = _corrected(tmp_path, vp=5)
    config = OLDMEN.spec.config(3)
    old, new = play(OLDMEN, config, b"two versions 0"), play(second, config, b"two versions 0")
    assert [(m.seat, m.command) for m in old.moves] == [(m.seat, m.command) for m in new.moves]
    (saver,) = [e.orangutan_saved.seat for e in old.events if e.orangutan_saved.orangutan_id == "O01"]
    old_result, new_result = OLDMEN.result(old.state), second.result(new.state)
    assert old_result is not None and new_result is not None
    old_scores = {s.seat: s.score for s in old_result.standings}
    new_scores = {s.seat: s.score for s in new_result.standings}
    assert new_scores == {**old_scores, saver: old_scores[saver] + 2}
    assert fold(second, new.events) == new.state
    assert fold(OLDMEN, old.events) == old.state
    assert fold(second, new.events) == new.state


def test_each_state_carries_its_versions_rules_and_a_snapshot_gives_them_back(tmp_path: Path) -> None:
    """Every state holds the rules of the game object that folded its first event; a snapshot stores none
    of them, and the codec of each version puts that version's rules back, so every state round-trips."""
    second = _corrected(tmp_path, vp=5)
    for game in (OLDMEN, second):
        codec = StateCodec(game.state_type, given={"rules": game.rules})
        playout = play(game, game.spec.config(4), b"snapshot per version")
        state = None
        for index, event in enumerate(playout.events):
            state = game.evolve(state, event)
            assert state.rules is game.rules
            if index % 25 == 0 or game.is_over(state):
                blob = codec.encode(state)
                assert b'"rules":' not in blob and b'"orangutans":' not in blob
                decoded = codec.decode(blob)
                assert decoded == state and decoded.rules is game.rules
    assert OLDMEN.rules.orangutan("O01") is not None and second.rules.orangutan("O01") is not None
    assert OLDMEN.rules.orangutan("O01").vp == 3 and second.rules.orangutan("O01").vp == 5  # type: ignore[union-attr]  # the orangutan exists in both versions


def test_a_broken_data_file_is_refused_with_the_entry_named() -> None:
    """A version whose data file is broken cannot be built: the sentence names the version, the file and the
    bad entry. So can a rule flag no Old Men version knows."""
    raw = json.loads(ORIGINAL.content)
    raw["orangutans"][6]["needs"] = {"brown": 1}
    broken = DataFile("oldmen/orangutans-2.json", json.dumps(raw).encode())
    with pytest.raises(ValueError, match=r"^oldmen/2, oldmen/orangutans-2\.json: orangutan O07: cannot need 'brown'$"):
        read_rules(RulesVersion.of("oldmen/2", (broken,)))
    with pytest.raises(ValueError, match=r"^oldmen/2, oldmen/orangutans-2\.json: Expecting value"):
        read_rules(RulesVersion.of("oldmen/2", (DataFile("oldmen/orangutans-2.json", b'{"orangutans": ['),)))
    with pytest.raises(ValueError, match=r"^oldmen/2: Old Men of the Forest has no rule flag 'hand_size'$"):
        load_rules("oldmen/2", flags={"hand_size": "9"})
