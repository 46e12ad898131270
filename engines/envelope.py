"""Between a game's own messages and the ``parlour.v1`` envelopes (Command, Event, GameView).

The envelopes carry a game's messages in a oneof whose field name is the game's name. This module is the
one place that wraps and unwraps them, for the service, the benchmarks and the tests.
"""

from __future__ import annotations

from typing import Any

from engines.contract import AnyGame
from engines.errors import MalformedCommandError
from parlour.v1 import game_pb2

__all__ = ["unwrap_command", "unwrap_event", "view_envelope", "wrap_command", "wrap_event"]


def wrap_command(game: AnyGame, command: Any) -> game_pb2.Command:
    """The envelope carrying a game's command."""
    envelope = game_pb2.Command()
    getattr(envelope, game.spec.name).CopyFrom(command)
    return envelope


def unwrap_command(game: AnyGame, envelope: game_pb2.Command) -> Any:
    """The game's command inside ``envelope``; MalformedCommandError if it is for no or another game."""
    which = envelope.WhichOneof("game")
    if which != game.spec.name:
        got = f"a {which} command" if which else "an empty command"
        raise MalformedCommandError(f"this is a {game.spec.name} game, but the request holds {got}")
    return getattr(envelope, which)


def wrap_event(game: AnyGame, event: Any, **fields: Any) -> game_pb2.Event:
    """The envelope carrying a game's event; ``fields`` sets version, command_id, seat, recorded_at."""
    envelope = game_pb2.Event(**fields)
    getattr(envelope, game.spec.name).CopyFrom(event)
    return envelope


def unwrap_event(game: AnyGame, envelope: game_pb2.Event) -> Any:
    """The game's event inside ``envelope``."""
    return getattr(envelope, game.spec.name)


def view_envelope(
    game: AnyGame, state: Any, seat: int | None, *, reveal: bool = False, **fields: Any
) -> game_pb2.GameView:
    """A seat's (or a spectator's) GameView of ``state``: board, pending seats, the seat's legal commands
    and, once the game is over, the standings. ``reveal`` shows every hidden part (see ``Game.view``: only
    for a finished game whose policy makes everything public). ``fields`` sets game_id and version."""
    view = game_pb2.GameView(game=game.spec.name, pending_seats=sorted(game.pending(state)), **fields)
    if seat is not None:
        view.seat = seat
        view.legal_commands.extend(wrap_command(game, c) for c in game.legal_commands(state, seat))
    getattr(view, game.spec.name).CopyFrom(game.view(state, seat, reveal=reveal))
    result = game.result(state)
    view.status = game_pb2.GAME_STATUS_FINISHED if result else game_pb2.GAME_STATUS_RUNNING
    if result:
        view.results.extend(game_pb2.SeatResult(seat=s.seat, score=s.score, rank=s.rank) for s in result.standings)
    return view
