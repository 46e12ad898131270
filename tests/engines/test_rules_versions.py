"""Every rules version decides forever as it was released: its data files, flags and decisions are
fingerprinted in tests/golden/versions.json, and a drift fails with the sentence that names the version to
add (``--update-golden`` records a new version; it never rewrites a released one)."""

from __future__ import annotations

import pytest

from engines.contract import AnyGame
from engines.oldmen import OLDMEN, OldMen
from engines.oldmen.data import read_rules
from engines.playout import play
from engines.registry import REGISTRY
from engines.rules import DataFile, RulesVersion
from engines.verify import LoggedEvent, verify_log
from tests.versions import RECORDED, drift, fingerprint, record, recorded


@pytest.mark.parametrize("game", REGISTRY.all(), ids=lambda g: g.spec.rules_version)
def test_a_released_rules_version_never_changes(game: AnyGame, request: pytest.FixtureRequest) -> None:
    entries = recorded()
    now = fingerprint(game)
    name = game.spec.rules_version
    if name not in entries:
        if not request.config.getoption("--update-golden"):
            pytest.fail(
                f"rules version {name} has no recorded fingerprint in {RECORDED.name}: once it is final, record "
                "it with `pytest tests/engines/test_rules_versions.py --update-golden` and check the file in"
            )
        record({**entries, name: now})
        return
    problem = drift(game, entries[name], now)
    assert problem is None, problem


def _corrected_oldmen(name: str) -> AnyGame:
    """Old Men under rules ``name`` read from a corrected copy of its orangutan table: O01 worth 4, not 3
    (what a rules editor does when the printed card turns up)."""
    released = OLDMEN.rules.version.file("oldmen/orangutans.json")
    corrected = released.text().replace('{"id": "O01", "vp": 3,', '{"id": "O01", "vp": 4,')
    assert corrected != released.text()
    return OldMen(read_rules(RulesVersion.of(name, (DataFile(released.path, corrected.encode()),))))


def test_a_data_file_changed_under_a_released_version_fails_naming_the_version_to_add() -> None:
    entries = recorded()
    drifted = _corrected_oldmen("oldmen/1")
    problem = drift(drifted, entries["oldmen/1"], fingerprint(drifted))
    assert problem is not None
    assert "engines/oldmen/orangutans.json" in problem
    assert "keep oldmen/1 as it was and add oldmen/2" in problem


def test_a_new_version_with_the_corrected_data_plays_and_verifies_while_the_old_one_still_does() -> None:
    corrected = _corrected_oldmen("oldmen/2")
    for game, vp in ((corrected, 4), (OLDMEN, 3)):
        config = game.spec.config(3)
        playout = play(game, config, b"corrected-data-seed")
        assert game.rules.version.name == game.spec.rules_version
        assert next(o.vp for o in playout.events[0].game_started.orangutans if o.id == "O01") == vp
        log = [LoggedEvent(i + 1, e) for i, e in enumerate(playout.setup)]
        for move in playout.moves:
            for offset, event in enumerate(move.events):
                first = offset == 0
                log.append(
                    LoggedEvent(len(log) + 1, event, move.seat if first else None, move.command if first else None)
                )
        verdict = verify_log(game, config, b"corrected-data-seed", log)
        assert verdict.ok, verdict.message
    assert fingerprint(corrected).rules != fingerprint(OLDMEN).rules
