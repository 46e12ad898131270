"""A game is one folder plus its wire contract: what the rest of the server finds from the registry.

Everything outside ``engines/<game>/`` (the envelopes, the REST gateway, the contract and hidden-information
suites, the web and CLI fallbacks) discovers games from ``engines.registry.GAMES``; these checks fail as
soon as a game is registered without its part of the envelopes, or a game folder is not registered.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.contract import AnyGame
from engines.registry import GAMES, game_names
from parlour.v1 import game_pb2

ENGINES = Path(__file__).resolve().parents[2] / "engines"


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.spec.name)
@pytest.mark.parametrize(
    ("envelope", "oneof", "message_of"),
    [
        (game_pb2.Command, "game", lambda game: game.command_type),
        (game_pb2.Event, "game", lambda game: game.event_type),
        (game_pb2.GameView, "board", lambda game: game.view_type),
    ],
    ids=["Command", "Event", "GameView"],
)
def test_every_game_has_its_field_in_each_envelope_oneof(
    game: AnyGame, envelope: type, oneof: str, message_of: object
) -> None:
    """parlour.v1.Command/Event/GameView carry the game's own message in a field named after the game,
    inside the envelope's oneof (what wrap_command, wrap_event and view_envelope rely on)."""
    fields = envelope.DESCRIPTOR.oneofs_by_name[oneof].fields  # type: ignore[attr-defined]  # the helper returns the event's own message typed as a plain Message
    field = next((f for f in fields if f.name == game.spec.name), None)
    assert field is not None, f"{envelope.__name__}.{oneof} has no field {game.spec.name!r}"
    assert field.message_type is message_of(game).DESCRIPTOR  # type: ignore[operator]  # each parametrized case gives a function of the game


def test_every_game_folder_is_registered_once() -> None:
    """Each package under engines/ with a game.py is in the registry, under its folder's name, once."""
    folders = sorted(path.parent.name for path in ENGINES.glob("*/game.py"))
    assert sorted(game_names()) == folders
    assert len(set(game_names())) == len(GAMES)


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.spec.name)
def test_a_games_state_class_is_its_own(game: AnyGame) -> None:
    """The state class a game declares is defined in its own folder (snapshots encode it)."""
    assert game.state_type.__module__.startswith(f"engines.{game.spec.name}.")
