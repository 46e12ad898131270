"""Rules versions of Libertalia side by side: each game object is one version, each state carries the rules
it began under, and a version is its data file and flags (a corrected copy of the data is a new version)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engines.contract import fold, step
from engines.libertalia import LIBERTALIA, LIBERTALIA_1, LIBERTALIA_2, Libertalia
from engines.libertalia.data import DataError, LibertaliaRules, load_rules
from engines.libertalia.state import Phase, State
from engines.libertalia.versions import VERSIONS
from engines.playout import play
from engines.prng import Prng
from engines.registry import REGISTRY, get_rules
from engines.rules import DataFile
from engines.snapshot import StateCodec
from parlour.v1 import libertalia_pb2 as pb
from tests.engines.libertalia.helpers import answer, legal, run, scenario

DATA = Path(__file__).resolve().parents[3] / "engines" / "libertalia" / "characters.json"
V2_FLAGS = {"anchor": "ordered", "turns": "seat_by_seat"}

#: What each released version must keep forever (engines.rules.RulesVersion.fingerprint): a change of
#: its data file or flags fails here; add a version instead.
FINGERPRINTS = {
    "libertalia/1": "c854c332444b0cb4f3c2e35f4ca4168d39714476dfc1fb17d537a3ea96a67efb",
    "libertalia/2": "449dcbcceffbb3db244a937a5b1763268d1429393d9bfecdb35e3cb22b81f2c4",
}


def _key(message: Any) -> bytes:
    return bytes(message.SerializeToString(deterministic=True))


def test_the_registry_holds_both_versions_and_new_games_get_the_second() -> None:
    """VERSIONS lists libertalia/1 then libertalia/2; LIBERTALIA is the newest and the current one."""
    assert [g.spec.rules_version for g in VERSIONS] == ["libertalia/1", "libertalia/2"]
    assert REGISTRY.versions("libertalia") == VERSIONS
    assert REGISTRY.current("libertalia") is LIBERTALIA is LIBERTALIA_2
    assert get_rules("libertalia/1") is LIBERTALIA_1
    for game in VERSIONS:
        assert game.spec.rules_version == game.rules.version.name
        assert game.start(game.spec.config(3), b"name")[0].game_started.rules_version == game.rules.version.name


def test_released_versions_keep_their_fingerprints() -> None:
    """The data file and flags of a released version never change (comments and layout aside)."""
    assert {g.spec.rules_version: g.rules.version.fingerprint() for g in VERSIONS} == FINGERPRINTS
    assert dict(LIBERTALIA_1.rules.version.flags) == {"anchor": "netted", "turns": "together"}
    assert dict(LIBERTALIA_2.rules.version.flags) == V2_FLAGS


def _alternately(games: list[Libertalia], seed: bytes) -> list[list[pb.LibertaliaEvent]]:
    """Play one game per version in one process, a command of each in turn, each from its own PRNG."""
    config = games[0].spec.config(4, {"board": "uncharted"})
    logs = [g.start(config, seed) for g in games]
    states: list[State] = [fold(g, log) for g, log in zip(games, logs, strict=True)]  # type: ignore[misc]  # both versions' states, of one class
    choosers = [Prng(seed, "playout") for _ in games]
    while not all(g.is_over(s) for g, s in zip(games, states, strict=True)):
        for index, game in enumerate(games):
            state = states[index]
            if game.is_over(state):
                continue
            assert state.rules is game.rules
            seat = choosers[index].choice(sorted(game.pending(state)))
            events = step(game, state, seat, choosers[index].choice(game.legal_commands(state, seat)))
            logs[index] += events
            states[index] = fold(game, events, state)  # type: ignore[assignment]  # fold returns the state type of either version
    return logs


def test_a_libertalia_1_and_a_libertalia_2_game_are_played_alternately_each_by_its_own_rules() -> None:
    """Interleaved in one process, each game gives exactly the events it gives when played alone."""
    interleaved = _alternately([LIBERTALIA_1, LIBERTALIA_2], b"side-by-side")
    for game, log in zip((LIBERTALIA_1, LIBERTALIA_2), interleaved, strict=True):
        alone = play(game, game.spec.config(4, {"board": "uncharted"}), b"side-by-side")
        assert [_key(e) for e in log] == [_key(e) for e in alone.events]
    assert [_key(e) for e in interleaved[0][1:]] != [_key(e) for e in interleaved[1][1:]]


def test_the_anchor_order_choice_exists_only_in_libertalia_2() -> None:
    """A lone night Witch and the First Mate at anchor: libertalia/2 asks which resolves first (3 or 2);
    libertalia/1 asks nothing, the Witch returns as the anchor begins and the First Mate counts 2."""
    ship = {0: {"ship": (15, 38, 3)}}
    v2, _ = run(scenario(players=ship, phase=Phase.ANCHOR, turn=-1, game=LIBERTALIA_2), stop_at=None)
    assert v2.prompt is not None and v2.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_ORDER
    assert {c.choose_ability.rank for c in legal(v2, 0)} == {15, 38}
    v1, events = run(scenario(players=ship, phase=Phase.ANCHOR, turn=-1, game=LIBERTALIA_1), stop_at=None)
    assert v1.voyage == 2 and v1.phase is Phase.SELECT and 15 in v1.players[0].hand  # no choice on the way
    assert not any(e.WhichOneof("kind") == "effects_queued" for e in events)
    scored = next(e.voyage_scored for e in events if e.WhichOneof("kind") == "voyage_scored")
    assert scored.scores[0].anchor_net == 2


@pytest.mark.parametrize("game", VERSIONS, ids=lambda g: g.spec.rules_version)
def test_a_snapshot_of_each_version_round_trips_with_its_rules_given_back(game: Libertalia) -> None:
    """Every state of a whole game decodes to an equal state carrying the same rules object, which the
    snapshot does not store."""
    codec = StateCodec(game.state_type, given={"rules": game.rules})
    playout = play(game, game.spec.config(5, {"board": "stormy"}), b"snapshot-" + game.spec.rules_version.encode())
    state = None
    for event in playout.events:
        state = game.evolve(state, event)
        blob = codec.encode(state)
        assert b"characters" not in blob and b"rules_version" in blob
        decoded = codec.decode(blob)
        assert decoded == state and decoded.rules is game.rules


def _copy_with(tmp_path: Path, name: str, change: Any) -> DataFile:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return DataFile(f"libertalia/{name}", path.read_bytes())


def _officer(data: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = next(c for c in data["characters"] if c["rank"] == 12)
    return entry


def test_a_data_file_with_a_broken_entry_is_refused_naming_the_file_the_card_and_the_field(tmp_path: Path) -> None:
    """The loader validates: the Officer without its target is named, with the field and the file."""
    broken = _copy_with(tmp_path, "characters-3.json", lambda d: _officer(d)["numbers"].pop("target"))
    with pytest.raises(DataError) as refused:
        load_rules("libertalia/3", broken, V2_FLAGS)
    assert all(word in str(refused.value) for word in ("characters-3.json", "character 12 (Officer)", "'target'"))


@pytest.mark.parametrize(
    ("name", "flags", "words"),
    [
        ("libertalia/3", {"anchor": "ordered"}, "flag 'turns'"),
        ("libertalia/3", {**V2_FLAGS, "anchor": "sometimes"}, "flag 'anchor'"),
        ("libertalia/3", {**V2_FLAGS, "weather": "fine"}, "no rule flag 'weather'"),
        ("oldmen/3", V2_FLAGS, "not a rules version of libertalia"),
    ],
)
def test_a_version_without_each_flag_or_of_another_game_is_refused(
    name: str, flags: dict[str, str], words: str
) -> None:
    """Every flag must be given one of its values, and only libertalia's flags."""
    with pytest.raises(ValueError, match=words):
        load_rules(name, "characters.json", flags)


def test_a_corrected_copy_of_the_data_is_a_new_version_and_the_released_one_keeps_its_number(tmp_path: Path) -> None:
    """libertalia/3, loaded from a copy with the Officer's 12 as 20, tops up to 20 while libertalia/2 (the
    same code) still tops up to 12; the same seed plays differently; the versions' fingerprints differ."""
    corrected = _copy_with(tmp_path, "characters-3.json", lambda d: _officer(d)["numbers"].update(target=20))
    third = Libertalia(load_rules("libertalia/3", corrected, V2_FLAGS))
    assert third.spec.rules_version == "libertalia/3" and third.libertalia_rules.number(12, "target") == 20
    assert LIBERTALIA_2.libertalia_rules.number(12, "target") == 12
    assert third.rules.version.fingerprint() != LIBERTALIA_2.rules.version.fingerprint()
    for game, target in ((third, 20), (LIBERTALIA_2, 12)):
        officer, _ = run(scenario(players={0: {"doubloons": 4}}, island=((0, 12),), game=game))
        assert officer.players[0].doubloons == target
    config = third.spec.config(4)
    scores = [game.result(play(game, config, b"officer").state) for game in (third, LIBERTALIA_2)]
    assert scores[0] != scores[1]


def test_comments_and_layout_of_a_data_file_are_not_part_of_its_version(tmp_path: Path) -> None:
    """The shipped file's comment can be reworded without changing libertalia/2's fingerprint."""
    reworded = _copy_with(tmp_path, "characters.json", lambda d: d.update(_comment="reworded"))
    rules = load_rules("libertalia/2", reworded, V2_FLAGS)
    assert rules.version.fingerprint() == LIBERTALIA_2.rules.version.fingerprint()
    assert rules == LIBERTALIA_2.rules


def test_rules_are_immutable_and_shared_by_copies_of_a_state() -> None:
    """A copied state (tests copy states to check decide changes nothing) shares its rules object."""
    state = scenario()
    assert copy.deepcopy(state).rules is state.rules
    assert repr(state.rules) == "LibertaliaRules('libertalia/2')" and isinstance(state.rules, LibertaliaRules)
    with pytest.raises(TypeError):
        state.rules.characters[12] = state.rules.characters[13]  # type: ignore[index]  # the rules' tables are read-only; the test shows it


@pytest.mark.parametrize("game", VERSIONS, ids=lambda g: g.spec.rules_version)
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_every_version_replays_its_own_games(game: Libertalia, seats: int) -> None:
    """For every seat count: folding the log again gives the live state, with the version's rules."""
    playout = play(game, game.spec.config(seats, {"board": "uncharted"}), b"replay")
    again = fold(game, playout.events)
    assert again is not None and again == playout.state and again.rules is game.rules


def test_a_merchant_sale_is_described_with_the_numbers_of_the_states_version(tmp_path: Path) -> None:
    """Prompt texts are functions of the rules: a version whose Merchant may sell 4 says so."""
    more = _copy_with(
        tmp_path,
        "characters-3.json",
        lambda d: next(c for c in d["characters"] if c["rank"] == 30)["numbers"].update(
            max_tokens=4, gain_by_count=[0, 1, 4, 9, 16]
        ),
    )
    third = Libertalia(load_rules("libertalia/3", more, V2_FLAGS))
    for game, most in ((third, 4), (LIBERTALIA_2, 3)):
        state, _ = run(scenario(players={0: {"supply": (4, 0, 0, 0, 0, 0, 0)}}, island=((0, 30),), game=game))
        assert len(legal(state, 0)) == most
        sell = pb.LibertaliaCommand(
            choose_loot=pb.LibertaliaChooseLoot(seat=0, loot=pb.LIBERTALIA_LOOT_BARREL, count=1)
        )
        with pytest.raises(Exception, match=rf"how many \(1 to {most}\) to sell"):
            answer(state, 0, sell)
