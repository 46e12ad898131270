"""The CLI's text boards: a game's own renderer is found from ``parlour/renderers/<game>.py``, and every
registered game is shown, with its renderer or as a tree of its view, for every seat and a spectator."""

from __future__ import annotations

from pathlib import Path

import pytest

import parlour.renderers
from engines.contract import AnyGame, fold
from engines.envelope import view_envelope
from engines.registry import GAMES, game_names
from parlour.cli.inspect import _event_line
from parlour.render import render_view
from parlour.renderers import RENDERERS
from parlour.v1 import game_pb2


def test_each_renderer_module_is_found_and_names_a_registered_game() -> None:
    files = {p.stem for p in Path(parlour.renderers.__file__).parent.glob("*.py")} - {"__init__"}
    assert files and set(RENDERERS) == {f for f in files if not f.startswith("_")}
    assert set(RENDERERS) <= set(game_names())


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
def test_every_game_is_shown_as_text(game: AnyGame) -> None:
    config = game.spec.config(game.spec.min_seats)
    state = fold(game, game.start(config, b"render-every-game"))
    for seat in [*range(config.seats), None]:
        text = render_view(view_envelope(game, state, seat, game_id="g1", version=7))
        who = "spectator" if seat is None else f"seat {seat}"
        assert text.startswith(f"{game.spec.name} g1 at version 7, seen by {who}; running")
        own = RENDERERS.get(game.spec.name)
        board = own(view_envelope(game, state, seat)) if own else [f"{game.spec.name} board:"]
        assert text.splitlines()[1 : 1 + len(board)] == board
        assert len(text.splitlines()) > 2


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
def test_an_event_line_shows_its_own_game_and_an_event_without_one_says_so(game: AnyGame) -> None:
    """`parlour events` prints each event's own game payload, never another game's (an event without a
    payload, from a newer server say, is printed as such)."""
    first = game.start(game.spec.config(game.spec.min_seats), b"event-line-of-each-game")[0]
    event = game_pb2.Event(version=1)
    getattr(event, game.spec.name).CopyFrom(first)
    line = _event_line(event, as_json=False)
    assert line.startswith("    1  setup") and first.WhichOneof("kind") in line
    assert _event_line(game_pb2.Event(version=2, seat=1), as_json=False) == "    2  seat 1  (no game payload)"
