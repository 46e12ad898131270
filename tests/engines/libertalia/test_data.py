"""The character table is data: validated on load with a sentence naming the card and the field (a
corrected number, loaded as a new rules version, changes the game without a change to the code:
``test_versions.py``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engines.libertalia import LIBERTALIA
from engines.libertalia.data import CHARACTER_NUMBERS, DataError, validate

ENGINES = Path(__file__).resolve().parents[3] / "engines"
RAW: dict[str, Any] = json.loads((ENGINES / "libertalia" / "characters.json").read_text(encoding="utf-8"))


def _character(data: dict[str, Any], rank: int) -> dict[str, Any]:
    entry: dict[str, Any] = next(c for c in data["characters"] if c["rank"] == rank)
    return entry


def test_the_shipped_file_is_valid_and_holds_the_numbers_the_rules_give() -> None:
    """Officer 12, Aristocrat 5/-3, Preacher 6, Infantry 5, Carpenter 10, Stormy barrel -1 at dusk."""
    validate(RAW)
    number = LIBERTALIA.libertalia_rules.number
    assert number(12, "target") == 12 and number(29, "rightmost_gain") == 5
    assert (number(34, "anchor_alone"), number(34, "anchor_shared")) == (5, -3)
    assert (number(7, "anchor"), number(11, "anchor")) == (6, 10)
    assert RAW["numbers"]["stormy_barrel_dusk"] == LIBERTALIA.libertalia_rules.board["stormy_barrel_dusk"] == -1
    assert len([n for names in CHARACTER_NUMBERS.values() for n in names]) >= 40


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: _character(d, 12)["numbers"].pop("target"), ["character 12 (Officer)", "'target'"]),
        (
            lambda d: _character(d, 34)["numbers"].update(anchor_alone="five"),
            ["character 34 (Aristocrat)", "anchor_alone"],
        ),
        (
            lambda d: _character(d, 35)["numbers"].update(anchor_by_types=[0, 1]),
            ["character 35 (Collector)", "list of 6"],
        ),
        (lambda d: _character(d, 7).update(timing=["sometimes"]), ["character 7 (Preacher)", "'timing'"]),
        (lambda d: d["numbers"].pop("stormy_barrel_dusk"), ["numbers", "stormy_barrel_dusk"]),
        (lambda d: d["characters"].pop(), ["each rank from 1 to 40"]),
    ],
)
def test_a_broken_table_is_refused_naming_the_card_and_the_field(change: Any, words: list[str]) -> None:
    broken = copy.deepcopy(RAW)
    change(broken)
    with pytest.raises(DataError) as refused:
        validate(broken)
    for word in ["characters.json", *words]:
        assert word in str(refused.value)


def test_the_merchants_table_follows_how_many_tokens_it_may_sell() -> None:
    """Selling up to 4 tokens needs a gain for 0..4 tokens: a table of 5, checked against max_tokens."""
    more = copy.deepcopy(RAW)
    _character(more, 30)["numbers"].update(max_tokens=4)
    with pytest.raises(DataError, match="gain_by_count"):
        validate(more)
    _character(more, 30)["numbers"].update(gain_by_count=[0, 1, 4, 9, 16])
    validate(more)
