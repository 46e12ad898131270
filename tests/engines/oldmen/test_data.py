"""Game data (rules section 1; D1, D2, D4): the 50 player cards and the orangutan table loaded from its data file."""

from __future__ import annotations

import pytest

from engines.contract import fold
from engines.oldmen import OLDMEN
from engines.oldmen.data import BROWN, COLOURS, DECK, Card, OldmenRules, Orangutan, colour_name, read_rules
from engines.playout import play
from engines.rules import DataFile, RulesVersion
from parlour.v1 import oldmen_pb2 as pb


def _rules(text: str) -> OldmenRules:
    """The rules of a version ``oldmen/9`` whose data file holds ``text``."""
    return read_rules(RulesVersion.of("oldmen/9", (DataFile("oldmen/table.json", text.encode()),)))


def test_deck_has_every_colour_and_value_once() -> None:
    """The 50 player cards are the five colours times the values 1 to 10, each pair exactly once."""
    assert len(DECK) == len(set(DECK)) == 50
    assert {(c.colour, c.value) for c in DECK} == {(colour, v) for colour in COLOURS for v in range(1, 11)}


def test_colours_are_named_by_their_engine_ids() -> None:
    """Colours are identified as red, yellow, blue, green and brown (D2); brown is the deforestation suit."""
    assert [colour_name(c) for c in COLOURS] == ["red", "yellow", "blue", "green", "brown"]
    assert colour_name(BROWN) == "brown"
    assert str(DECK[-1]) == "brown 10"


def test_orangutan_table_matches_the_rules() -> None:
    """The data file holds the 16 orangutans of rules section 1.2: 128 VP in all, O01 is 3 VP for 1 yellow (D1)."""
    table = {o.id: o for o in OLDMEN.rules.orangutans}
    assert sorted(table) == [f"O{i:02d}" for i in range(1, 17)]
    assert sum(o.vp for o in table.values()) == 128
    assert table["O01"] == Orangutan("O01", 3, (pb.OLDMEN_COLOUR_YELLOW,))
    assert table["O15"].describe_needs() == "2 red and 2 yellow"
    assert table["O16"].describe_needs() == "2 blue and 2 green"
    assert all(BROWN not in o.needs for o in table.values())


def test_another_table_in_the_same_format_loads_as_given() -> None:
    """A rules version can read another table in the same format, with no change of code (D1)."""
    (card,) = _rules('{"orangutans": [{"id": "X1", "vp": 9, "needs": {"green": 2, "red": 1}}]}').orangutans
    assert card == Orangutan("X1", 9, (pb.OLDMEN_COLOUR_RED, pb.OLDMEN_COLOUR_GREEN, pb.OLDMEN_COLOUR_GREEN))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"orangutans": [{"id": "X", "vp": 3, "needs": {"brown": 1}}]}', "X: cannot need 'brown'"),
        ('{"orangutans": [{"id": "X", "vp": 3, "needs": {"purple": 1}}]}', "X: cannot need 'purple'"),
        ('{"orangutans": [{"id": "X", "vp": 0, "needs": {"red": 1}}]}', "X: needs cards and positive VP"),
        ('{"orangutans": [{"id": "X", "vp": 3, "needs": {}}]}', "X: needs cards and positive VP"),
        ('{"orangutans": [{"id": "X", "vp": 3, "needs": {"red": 0}}]}', "X: needs a positive count of red"),
        ('{"orangutans": [{"id": "X", "needs": {"red": 1}}]}', "X: needs a number 'vp'"),
        ('{"orangutans": [{"vp": 3, "needs": {"red": 1}}]}', "orangutan number 1: needs an 'id'"),
        ('{"orangutan": []}', "needs a list 'orangutans'"),
        (
            '{"orangutans": [{"id": "X", "vp": 3, "needs": {"red": 1}}, {"id": "X", "vp": 3, "needs": {"red": 1}}]}',
            "ids must be unique",
        ),
    ],
)
def test_bad_orangutan_tables_are_refused(text: str, words: str) -> None:
    """A table asking for brown (D4) or an unknown colour, without needs, VP or id, or with a repeated id is
    refused, with the version, the file and the entry named."""
    with pytest.raises(ValueError, match=f"^oldmen/9, oldmen/table.json: .*{words}"):
        _rules(text)


def test_states_folded_from_stored_events_share_the_decks_cards() -> None:
    """Cards read from events are the deck's own instances: a server holding many games' states keeps the 50
    cards once, not a copy in every hand, pool and trick (fewer objects to hold and for the garbage
    collector to walk). A card no deck holds still reads as itself."""
    playout = play(OLDMEN, OLDMEN.spec.config(4, {"match_deals": "1"}), b"shared-cards")
    stored = [OLDMEN.event_type.FromString(e.SerializeToString()) for e in playout.events[:40]]
    state = fold(OLDMEN, stored)
    held = [c for p in state.players for c in (*p.hand, *p.pool, *(t for s in p.saved for t in s.tucked))]
    held += [c for _, c in state.trick] + list(state.discard)
    assert len(held) >= 40  # the hands are dealt
    deck = {id(card) for card in DECK}
    assert [card for card in held if id(card) not in deck] == []
    assert Card.from_pb(pb.OldmenCard(colour=pb.OLDMEN_COLOUR_RED, value=11)) == (pb.OLDMEN_COLOUR_RED, 11)
