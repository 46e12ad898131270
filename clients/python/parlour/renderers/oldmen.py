"""Old Men of the Forest as text: the row, the trick and each seat's hand, pool and saved orangutans."""

from __future__ import annotations

from parlour.v1 import game_pb2
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["render"]

_COLOURS = {
    pb.OLDMEN_COLOUR_RED: "R",
    pb.OLDMEN_COLOUR_YELLOW: "Y",
    pb.OLDMEN_COLOUR_BLUE: "B",
    pb.OLDMEN_COLOUR_GREEN: "G",
    pb.OLDMEN_COLOUR_BROWN: "b",
}


def _card(card: pb.OldmenCard) -> str:
    return f"{_COLOURS.get(card.colour, '?')}{card.value}"


def _cards(cards: object) -> str:
    return " ".join(_card(c) for c in cards) or "-"  # type: ignore[attr-defined]  # cards is any repeated field of OldmenCard messages


def _orangutan(o: pb.OldmenOrangutan) -> str:
    needs = "".join(_COLOURS.get(c, "?") for c in o.needs)
    return f"{o.id}({o.vp}vp:{needs})"


def render(view: game_pb2.GameView) -> list[str]:
    """The board's lines: deal, round and phase, the orangutan row, the trick, each seat, the discard."""
    board = view.oldmen
    phase = pb.OldmenPhase.Name(board.phase).removeprefix("OLDMEN_PHASE_").lower()
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
