"""Readable text boards for the terminal, from a GameView alone.

A game's own board comes from ``parlour/renderers/<game>.py`` (found by :mod:`parlour.renderers`); games
without one are shown as an indented tree of their board message.
"""

from __future__ import annotations

from google.protobuf import text_format

from parlour.renderers import RENDERERS
from parlour.v1 import game_pb2

__all__ = ["render_view"]


def _tree(view: game_pb2.GameView) -> list[str]:
    board = view.WhichOneof("board")
    body = text_format.MessageToString(getattr(view, board)) if board else ""
    return [f"{view.game} board:", *("  " + line for line in body.splitlines())]


def render_view(view: game_pb2.GameView) -> str:
    """The view as lines of text: a header (version, perspective, who acts), the board, the results."""
    who = f"seat {view.seat}" if view.HasField("seat") else "spectator"
    status = game_pb2.GameStatus.Name(view.status).removeprefix("GAME_STATUS_").lower()
    pending = ", ".join(str(s) for s in view.pending_seats) or "nobody"
    lines = [f"{view.game} {view.game_id} at version {view.version}, seen by {who}; {status}; to act: {pending}"]
    lines += RENDERERS.get(view.game, _tree)(view)
    if view.results:
        lines.append("Results: " + ", ".join(f"#{r.rank} seat {r.seat} ({r.score})" for r in view.results))
    return "\n".join(lines)
