"""A greedy Old Men of the Forest bot: scores each legal command from its seat's view and plays the best.

Heuristics only (the rules decide legality): play high cards to win a trick, take the cards whose colours
the orangutans in the row need most (brown pays for nothing), and save the most valuable orangutan it can.
"""

from __future__ import annotations

from collections import Counter

from parlour.bots.base import Bot
from parlour.v1 import game_pb2
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["BOTS", "OldmenGreedyBot"]


class OldmenGreedyBot(Bot):
    """Greedy: the legal command with the highest heuristic score (ties: the first)."""

    name = "greedy"

    def choose(self, view: game_pb2.GameView) -> game_pb2.Command:
        """The best-scoring legal command."""
        board = view.oldmen
        needed: Counter[int] = Counter(int(colour) for orangutan in board.row for colour in orangutan.needs)
        played = {t.seat: t.card for t in board.trick}
        vp = {o.id: o.vp for o in board.row}
        commands = list(view.legal_commands)
        return max(commands, key=lambda c: _score(c.oldmen, needed, played, vp))


def _score(
    command: pb.OldmenCommand, needed: Counter[int], played: dict[int, pb.OldmenCard], vp: dict[str, int]
) -> float:
    kind = command.WhichOneof("kind")
    if kind == "play_card":
        return float(command.play_card.card.value)
    if kind == "take_card":
        card = played.get(command.take_card.from_seat)
        if card is None or card.colour == pb.OLDMEN_COLOUR_BROWN:
            return -1.0
        return needed[card.colour] + card.value / 100
    if kind == "save_orangutan":
        return 100.0 + vp.get(command.save_orangutan.orangutan_id, 0)
    return 0.0


#: This game's strategies for :func:`parlour.bots.make_bot` (strategy name -> bot class).
BOTS: dict[str, type[Bot]] = {"greedy": OldmenGreedyBot}
