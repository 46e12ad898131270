"""Game data of Verräter: the data file, the VP table, the option list (rules section 1, D1, D15, D24, D25)."""

from __future__ import annotations

import json

import pytest

from engines.contract import fold
from engines.playout import play
from engines.rules import DataFile, RulesVersion, data_file
from engines.verraeter import VERRAETER
from engines.verraeter.data import VerraeterRules, read_rules
from parlour.v1 import verraeter_pb2 as pb
from tests.engines.verraeter.helpers import BUILDER, DIPLOMAT5, FARMER, STRATEGIST, TRAITOR, drafted, new_game, play_all

DATA: VerraeterRules = VERRAETER.rules  # type: ignore[assignment]  # Game.rules is typed as the contract's member


def test_base_strengths_and_the_sourced_vp_value() -> None:
    """Bases are 0/3/5/7/10/15 and a river conquered by 2 winners gives 4 VP each (the one sourced value)."""
    types = {t.id: t for t in DATA.land_types}
    assert [types[t].base for t in ("wild", "meadow", "river", "forest", "village", "city")] == [0, 3, 5, 7, 10, 15]
    assert types["river"].points(2) == 4
    assert types["city"].points(0) == 0


def test_both_sets_share_one_type_table() -> None:
    """Set A and set B cards of a type carry the same numbers (D25): each card names only its type."""
    by_type: dict[str, list[str]] = {}
    for land in DATA.lands:
        by_type.setdefault(land.type, []).append(land.id)
    assert all(len(ids) == 2 for ids in by_type.values())


def test_states_folded_from_stored_events_share_the_rules_land_types() -> None:
    """The land types a game's start lists are the rules' own instances (equal ones; the event still says
    what they are), so a server holding many games' states keeps each type once."""
    events = play(VERRAETER, VERRAETER.spec.config(4), b"shared-land-types").events
    state = fold(VERRAETER, [pb.VerraeterEvent.FromString(e.SerializeToString()) for e in events])
    own = {id(kind) for kind in DATA.land_types}
    assert state is not None
    assert state.land_types and all(id(kind) in own for kind in state.land_types)


def test_supply_deck_is_twenty_three_cards_worth_ninety() -> None:
    """The base supply deck is 5x2, 5x3, 5x4, 5x5, 2x6, 1x8 (D1)."""
    assert len(DATA.supply_base) == 23 and sum(DATA.supply_base) == 90
    assert len(DATA.supply_five_player) == 4


def _rules(raw: object) -> VerraeterRules:
    """The rules of a version ``verraeter/9`` whose data file holds ``raw``."""
    return read_rules(RulesVersion.of("verraeter/9", (DataFile("verraeter/data.json", json.dumps(raw).encode()),)))


def test_bad_data_is_rejected_with_the_entry_named() -> None:
    """A data file with an unknown land type, a short VP table, an unknown action card, a missing field or no
    rounds for a seat count does not load; the sentence names the version, the file and the entry."""
    raw = json.loads(data_file("engines.verraeter", "verraeter.json").content)
    raw["lands"][0]["type"] = "swamp"
    with pytest.raises(ValueError, match=r"^verraeter/9, verraeter/data\.json: land wild-A: unknown type"):
        _rules(raw)
    raw["lands"][0]["type"] = "wild"
    raw["land_types"][0]["vp"] = [3, 2]
    with pytest.raises(ValueError, match=r"^verraeter/9, verraeter/data\.json: land type wild: needs a VP value"):
        _rules(raw)
    raw["land_types"][0]["vp"] = [3, 2, 1, 1, 1]
    raw["actions"][0]["id"] = "spy"
    with pytest.raises(ValueError, match=r"^verraeter/9, verraeter/data\.json: unknown action card 'spy'$"):
        _rules(raw)
    raw["actions"][0]["id"] = "traitor"
    del raw["rounds"]["5"]
    with pytest.raises(ValueError, match="rounds: needs the number of rounds for 3, 4 and 5 players"):
        _rules(raw)
    raw["rounds"]["5"] = 10
    del raw["hand_limit"]
    with pytest.raises(ValueError, match=r"^verraeter/9, verraeter/data\.json: an entry lacks the field 'hand_limit'$"):
        _rules(raw)


def test_options_are_string_valued_with_documented_defaults() -> None:
    """Options: random start hand, random layout, refill cap on, provisional Mercenary off."""
    defaults = {o.name: o.default for o in VERRAETER.spec.options}
    assert defaults == {"start_hand": "random", "land_layout": "random", "refill_cap": "true", "mercenary": "false"}
    mercenary = next(o for o in VERRAETER.spec.options if o.name == "mercenary")
    assert "PROVISIONAL" in mercenary.description


def test_only_diplomat2_draws_a_card() -> None:
    """The Diplomat +5 holder draws nothing in the refill; only the Diplomat +2 does (D7)."""
    state = drafted(new_game(4, deck=[2] * 10), 0, {0: DIPLOMAT5, 1: FARMER, 2: TRAITOR, 3: STRATEGIST}, hidden=BUILDER)
    _, events = play_all(state, {})
    draws = {(e.cards_drawn.seat, e.cards_drawn.source) for e in events if e.WhichOneof("kind") == "cards_drawn"}
    assert {source for seat, source in draws if seat == 0} == {pb.VERRAETER_DRAW_SOURCE_ESTATE}
