"""Every component of every rules version has a name and an effect in a sentence, made from that version's
own numbers: a number corrected in a copy of the data (a new version) shows in the text."""

from __future__ import annotations

import json
import re

import pytest

from engines.contract import AnyGame
from engines.libertalia import LIBERTALIA, Libertalia
from engines.libertalia.data import load_rules as libertalia_rules
from engines.oldmen import OLDMEN, OldMen
from engines.oldmen.data import read_rules as oldmen_rules
from engines.registry import REGISTRY, catalog_of
from engines.rules import DataFile, RulesVersion
from engines.texts import Entry

#: The kinds each game's catalogue must cover, with how many of each at least.
_KINDS = {
    "oldmen": {"colour": 5, "orangutan": 16},
    "verraeter": {"land_type": 6, "land": 12, "action_card": 6, "supply_card": 5, "building": 2, "house": 2},
    "libertalia": {"character": 41, "loot": 14, "track_space": 7},
}


@pytest.mark.parametrize("game", REGISTRY.all(), ids=lambda g: g.spec.rules_version)
def test_every_component_is_named_and_explained(game: AnyGame) -> None:
    catalog = catalog_of(game)
    for entry in catalog.entries:
        for text in (entry.name, entry.effect, entry.description):
            assert text.strip() and not re.search(r"[{}]", text), entry
        assert len(entry.effect) <= 160, entry  # a sentence, not a page
    counts: dict[str, int] = {}
    for entry in catalog.entries:
        counts[entry.kind] = counts.get(entry.kind, 0) + 1
    for kind, least in _KINDS[game.spec.name].items():
        assert counts.get(kind, 0) >= least, (kind, counts)
    assert len({(e.kind, e.id) for e in catalog.entries}) == len(catalog.entries)
    assert catalog.phases and all(line.endswith(".") for _, line in catalog.phases)


def _entry(game: AnyGame, kind: str, entry_id: str) -> Entry:
    return next(e for e in catalog_of(game).entries if (e.kind, e.id) == (kind, entry_id))


def test_a_corrected_character_number_shows_in_its_text() -> None:
    released = LIBERTALIA.rules.version.file("libertalia/characters.json")
    data = json.loads(released.content)
    officer = next(c for c in data["characters"] if c["rank"] == 12)
    officer["numbers"]["target"] = 15
    corrected = DataFile(released.path, json.dumps(data).encode())
    game = Libertalia(libertalia_rules("libertalia/3", corrected, dict(LIBERTALIA.rules.version.flags)))
    assert "15" in _entry(game, "character", "12").effect
    assert (
        "12" in _entry(LIBERTALIA, "character", "12").effect
        and "15" not in _entry(LIBERTALIA, "character", "12").effect
    )


def test_a_corrected_orangutan_shows_in_its_text() -> None:
    released = OLDMEN.rules.version.file("oldmen/orangutans.json")
    corrected = released.text().replace('{"id": "O01", "vp": 3,', '{"id": "O01", "vp": 4,')
    game = OldMen(oldmen_rules(RulesVersion.of("oldmen/2", (DataFile(released.path, corrected.encode()),))))
    assert _entry(game, "orangutan", "O01").effect == "Save it for 4 points by paying 1 yellow."
    assert _entry(OLDMEN, "orangutan", "O01").effect == "Save it for 3 points by paying 1 yellow."
