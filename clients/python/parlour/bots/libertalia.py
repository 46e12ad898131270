"""A greedy Libertalia bot: scores every legal command from the seat's view with simple rules of thumb.

It sees only the GameView (the wire contract), never the engine: character picks are valued from a table
adjusted by what the view shows (doubloons, ship, loot, reputation, days left), loot by a value per type
and board side, and every other choice by the value of what it gains or denies.
"""

from __future__ import annotations

from collections.abc import Callable

from parlour.bots.base import Bot
from parlour.v1 import game_pb2
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["BOTS", "LibertaliaGreedyBot"]

# Rough worth of playing each character, before the adjustments in _pick_value (doubloons).
_BASE = {
    1: 2, 2: 3, 3: 2, 4: 2, 5: 2, 6: 2, 7: 6, 8: 3, 9: 3, 10: 3, 11: 7, 12: 4, 13: 4, 14: 2, 15: 2,
    16: 2, 17: 2, 18: 2, 19: 2, 20: 2, 21: 3, 22: 3, 23: 1, 24: 2, 25: 3, 26: 5, 27: 2, 28: 3, 29: 3,
    30: 3, 31: 2, 32: 3, 33: 5, 34: 5, 35: 3, 36: -1, 37: 3, 38: 2, 39: 0, 40: 0,
}  # fmt: skip
_CALM_LOOT = {1: 3.5, 2: 1.5, 3: 3.0, 4: 5.0, 5: 2.0, 6: 1.0, 7: -3.0}
_STORMY_LOOT = {1: 3.0, 2: 1.5, 3: 4.0, 4: 5.5, 5: 2.0, 6: 1.5, 7: -2.0}
# Worth of keeping a character in the ship through the anchor (Calm hook) or of discarding an opponent's.
_ANCHOR = {7: 6, 11: 10, 33: 6, 34: 5, 38: 3, 32: 3, 35: 3, 8: 2, 22: 2, 24: 2, 28: 2, 37: 2, 36: -6}


class LibertaliaGreedyBot(Bot):
    """Plays the legal command with the best one-step score; ties go to the first such command."""

    name = "greedy"

    def choose(self, view: game_pb2.GameView) -> game_pb2.Command:
        """The best-scoring legal command of ``view``."""
        board = view.libertalia
        me = view.seat
        best = max(range(len(view.legal_commands)), key=lambda i: self._score(board, me, view.legal_commands[i]))
        return view.legal_commands[best]

    def _score(self, board: pb.LibertaliaView, me: int, envelope: game_pb2.Command) -> float:
        command = envelope.libertalia
        kind = command.WhichOneof("kind")
        scorer = _SCORERS.get(str(kind))
        return scorer(board, me, command) if scorer else 0.0


def _loot_value(board: pb.LibertaliaView, loot: int) -> float:
    stormy = board.sides[loot - 1] == pb.LIBERTALIA_SIDE_STORMY if len(board.sides) >= loot else False
    return (_STORMY_LOOT if stormy else _CALM_LOOT).get(loot, 0.0)


def _held(seat: pb.LibertaliaSeatView) -> dict[int, int]:
    return {c.loot: c.count for c in seat.supply}


def _nights_left(board: pb.LibertaliaView) -> int:
    return max(1, board.days - board.day + 1)


def _pick_value(board: pb.LibertaliaView, me: int, rank: int) -> float:
    seat = board.seats[me]
    ship = [c.rank for c in seat.ship]
    tokens = sum(c.count for c in seat.supply)
    nights = _nights_left(board)
    opponents_ships = [c.rank for s in board.seats if s.seat != me for c in s.ship]
    adjust: dict[int, float] = {
        8: nights,
        11: 10 - seat.doubloons / 2,
        12: max(12 - seat.doubloons, 2),
        20: sum(1 for r in ship if r > 20) * nights * 0.7,
        21: 2 * sum(1 for r in ship if r < 21),
        22: nights + (2 if 22 in opponents_ships else 0),
        24: (4 - len(ship) - 1) * nights,
        33: 6 - tokens,
        34: 5 if 34 not in opponents_ships else -1,
        36: tokens - 6,
        37: 2 * nights if 37 not in opponents_ships else -2,
        38: 2,
        40: -sum(_ANCHOR.get(r, 1) for r in ship) + len(ship),
        6: float(seat.reputation_space),
        39: -(5 - seat.reputation_space) + 1.0,
    }
    dusk_priority = rank / 20  # higher ranks take loot first
    return _BASE.get(rank, 1) + adjust.get(rank, 0.0) + dusk_priority


def _select(board: pb.LibertaliaView, me: int, c: pb.LibertaliaCommand) -> float:
    return _pick_value(board, me, c.select_character.rank)


def _character(board: pb.LibertaliaView, me: int, c: pb.LibertaliaCommand) -> float:
    owner, rank = c.choose_character.seat, c.choose_character.rank
    kind = board.prompt.kind
    if kind in (
        pb.LIBERTALIA_CHOICE_KIND_GUNNER_DISCARD,
        pb.LIBERTALIA_CHOICE_KIND_SABER_ISLAND,
        pb.LIBERTALIA_CHOICE_KIND_SABER_SHIP,
        pb.LIBERTALIA_CHOICE_KIND_BRAWLER_DISCARD,
    ):
        worth = _ANCHOR.get(rank, 1) + rank / 40
        return worth if owner != me else -worth - 2
    if kind == pb.LIBERTALIA_CHOICE_KIND_HOOK_KEEP:
        return _ANCHOR.get(rank, 0) - 2
    if kind == pb.LIBERTALIA_CHOICE_KIND_INNKEEPER_RETURN:
        return _BASE.get(rank, 1) - _ANCHOR.get(rank, 0)
    return _pick_value(board, me, rank)


def _loot(board: pb.LibertaliaView, me: int, c: pb.LibertaliaCommand) -> float:
    chosen = c.choose_loot
    value = _loot_value(board, chosen.loot)
    kind = board.prompt.kind
    if kind == pb.LIBERTALIA_CHOICE_KIND_MERCHANT_SELL:
        return chosen.count * chosen.count - chosen.count * value
    return value


def _swap(board: pb.LibertaliaView, me: int, c: pb.LibertaliaCommand) -> float:
    return _loot_value(board, c.swap_loot.next_day) - _loot_value(board, c.swap_loot.today)


def _ability(board: pb.LibertaliaView, me: int, c: pb.LibertaliaCommand) -> float:
    gains = {8: 3, 22: 3, 28: 3, 10: 3, 24: 2, 15: 1, 20: -1, 16: -2}
    return gains.get(c.choose_ability.rank, 0)


def _reward(board: pb.LibertaliaView, me: int, c: pb.LibertaliaCommand) -> float:
    if c.choose_reward.reward == pb.LIBERTALIA_REWARD_DOUBLOONS:
        return 4 if board.prompt.kind == pb.LIBERTALIA_CHOICE_KIND_AMULET_REWARD else 2
    return 2.5 if board.seats[me].reputation_space < 4 else 1


_SCORERS: dict[str, Callable[[pb.LibertaliaView, int, pb.LibertaliaCommand], float]] = {
    "select_character": _select,
    "choose_character": _character,
    "choose_loot": _loot,
    "swap_loot": _swap,
    "choose_ability": _ability,
    "choose_reward": _reward,
}


#: This game's strategies for :func:`parlour.bots.make_bot` (strategy name -> bot class).
BOTS: dict[str, type[Bot]] = {"greedy": LibertaliaGreedyBot}
