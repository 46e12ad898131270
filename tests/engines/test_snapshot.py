"""Snapshots encode every state of every registered game exactly, by field name, and refuse what does not fit."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import NamedTuple

import pytest

from engines.contract import AnyGame
from engines.playout import play
from engines.registry import GAMES
from engines.snapshot import GIVEN, SnapshotError, StateCodec


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.spec.name)
def test_every_state_of_a_seeded_game_survives_the_round_trip(game: AnyGame) -> None:
    """Each state along a whole seeded game (largest table) decodes to an equal state of the game's class."""
    codec = StateCodec.of_game(game)
    playout = play(game, game.spec.config(game.spec.max_seats), b"snapshot-round-trip")
    state = None
    for event in playout.events:
        state = game.evolve(state, event)
        assert type(state) is game.state_type
        assert codec.decode(codec.encode(state)) == state


class Colour(Enum):
    RED = "red"


@dataclasses.dataclass(frozen=True)
class Inner:
    colour: Colour
    cards: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Outer:
    seed: bytes
    inner: Inner | None
    pair: tuple[int, str]


def test_values_of_the_wrong_shape_are_refused_with_their_place() -> None:
    """Decoding is strict: the error names where the snapshot and the class disagree."""
    codec = StateCodec(Outer)
    good = Outer(seed=b"\x01", inner=Inner(Colour.RED, (1, 2)), pair=(3, "x"))
    assert codec.decode(codec.encode(good)) == good
    for blob, words in [
        (b'{"seed": "01", "inner": null}', "missing ['pair']"),
        (b'{"seed": "01", "inner": null, "pair": [3, "x"], "extra": 1}', "unknown ['extra']"),
        (b'{"seed": "01", "inner": {"colour": "blue", "cards": []}, "pair": [3, "x"]}', "state.inner.colour"),
        (b'{"seed": "01", "inner": {"colour": "red", "cards": ["1"]}, "pair": [3, "x"]}', "state.inner.cards[0]"),
        (b'{"seed": "01", "inner": null, "pair": [3]}', "expected 2 items"),
        (b"\xff", "not JSON"),
    ]:
        with pytest.raises(SnapshotError, match=words.replace("[", r"\[").replace("]", r"\]")):
            codec.decode(blob)


def test_the_fingerprint_follows_the_shape_and_not_the_names() -> None:
    """Another field changes the fingerprint (an old snapshot is then not decoded into the new shape); the
    same fields under another class name do not."""
    same = dataclasses.make_dataclass(
        "Elsewhere", [("seed", bytes), ("inner", Inner | None), ("pair", tuple[int, str])]
    )
    more = dataclasses.make_dataclass("Outer", [*[(f.name, f.type) for f in dataclasses.fields(same)], ("n", int)])
    assert StateCodec(same).fingerprint == StateCodec(Outer).fingerprint
    assert StateCodec(more).fingerprint != StateCodec(Outer).fingerprint


@dataclasses.dataclass(frozen=True)
class WithRules:
    turn: int
    rules: str = dataclasses.field(default="", metadata=GIVEN)


def test_a_given_field_is_not_stored_and_comes_back_from_the_codec() -> None:
    """A field the game itself knows (its version's rules) is left out of the snapshot and of the shape's
    fingerprint, and every decoded state gets the value the codec was given; a codec without it refuses."""
    codec = StateCodec(WithRules, given={"rules": "version two"})
    blob = codec.encode(WithRules(3, "version one"))
    assert b"version" not in blob
    assert codec.decode(blob) == WithRules(3, "version two")
    assert codec.fingerprint == StateCodec(dataclasses.make_dataclass("Plain", [("turn", int)])).fingerprint
    with pytest.raises(SnapshotError, match=r"WithRules\.rules is not stored in snapshots"):
        StateCodec(WithRules)


class Card(NamedTuple):
    colour: Colour
    value: int


@dataclasses.dataclass(frozen=True)
class Hands:
    cards: tuple[Card, ...]
    inner: Inner
    outer: Outer


def test_small_values_are_shared_by_every_state_one_codec_decodes() -> None:
    """A record of scalars and tuples of scalars only (a card, a land type) decodes to one instance per value
    across the states one codec decodes, so a server loading many games from snapshots holds each once; a
    record holding more (bytes, another record) is built afresh for each state."""
    codec = StateCodec(Hands)
    inner = Inner(Colour.RED, (1,))
    blob = codec.encode(Hands((Card(Colour.RED, 1), Card(Colour.RED, 2)), inner, Outer(b"\x01", inner, (3, "x"))))
    first, second = codec.decode(blob), codec.decode(blob)
    assert first == second
    assert all(a is b for a, b in zip(first.cards, second.cards, strict=True))
    assert first.inner is second.inner
    assert first.outer is not second.outer
