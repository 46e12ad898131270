"""Readable text boards for the terminal, one renderer per game, from a GameView alone.

Games without a renderer of their own are shown as an indented tree of their board message.
"""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf import text_format

from parlour.v1 import game_pb2, oldmen_pb2

__all__ = ["render_view"]

_COLOURS = {
    oldmen_pb2.OLDMEN_COLOUR_RED: "R",
    oldmen_pb2.OLDMEN_COLOUR_YELLOW: "Y",
    oldmen_pb2.OLDMEN_COLOUR_BLUE: "B",
    oldmen_pb2.OLDMEN_COLOUR_GREEN: "G",
    oldmen_pb2.OLDMEN_COLOUR_BROWN: "b",
}


def _card(card: oldmen_pb2.OldmenCard) -> str:
    return f"{_COLOURS.get(card.colour, '?')}{card.value}"


def _cards(cards: object) -> str:
    return " ".join(_card(c) for c in cards) or "-"  # type: ignore[attr-defined]


def _orangutan(o: oldmen_pb2.OldmenOrangutan) -> str:
    needs = "".join(_COLOURS.get(c, "?") for c in o.needs)
    return f"{o.id}({o.vp}vp:{needs})"


def _oldmen(view: game_pb2.GameView) -> list[str]:
    board = view.oldmen
    phase = oldmen_pb2.OldmenPhase.Name(board.phase).removeprefix("OLDMEN_PHASE_").lower()
    lines = [
        f"Old Men of the Forest - deal {board.deal}/{board.match_deals}, round {board.round}/10, {phase}",
        f"Row: {' '.join(_orangutan(o) for o in board.row) or '-'}   deck: {board.deck_count}",
        "Trick: " + (" ".join(f"s{t.seat}:{_card(t.card)}{'*' if t.taken else ''}" for t in board.trick) or "-"),
    ]
    if board.first_winner >= 0:
        lines.append(f"Winners: first seat {board.first_winner}, second seat {board.second_winner}")
    for seat in board.seats:
        marker = ">" if seat.seat in view.pending_seats else " "
        hand = _cards(seat.hand) if seat.hand else f"[{seat.hand_count} cards]"
        saved = " ".join(f"{s.orangutan_id}({s.vp})+{len(s.tucked)}" for s in seat.saved) or "-"
        lines.append(
            f"{marker} seat {seat.seat}: score {seat.score:>3}  hand {hand}  pool {_cards(seat.pool)}  saved {saved}"
        )
    lines.append(f"Discard: {_cards(board.discard)}")
    return lines


def _tree(view: game_pb2.GameView) -> list[str]:
    board = view.WhichOneof("board")
    body = text_format.MessageToString(getattr(view, board)) if board else ""
    return [f"{view.game} board:", *("  " + line for line in body.splitlines())]


_RENDERERS: dict[str, Callable[[game_pb2.GameView], list[str]]] = {"oldmen": _oldmen}


def render_view(view: game_pb2.GameView) -> str:
    """The view as lines of text: a header (version, perspective, who acts), the board, the results."""
    who = f"seat {view.seat}" if view.HasField("seat") else "spectator"
    status = game_pb2.GameStatus.Name(view.status).removeprefix("GAME_STATUS_").lower()
    pending = ", ".join(str(s) for s in view.pending_seats) or "nobody"
    lines = [f"{view.game} {view.game_id} at version {view.version}, seen by {who}; {status}; to act: {pending}"]
    lines += _RENDERERS.get(view.game, _tree)(view)
    if view.results:
        lines.append("Results: " + ", ".join(f"#{r.rank} seat {r.seat} ({r.score})" for r in view.results))
    return "\n".join(lines)
