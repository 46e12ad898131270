"""A greedy Verräter bot: scores each legal command from what its seat can see and plays the best.

It uses only the GameView (board, its own hand and action card, the legal commands), never the server's
rules code: the rules it needs (strength = land base + supply + Diplomat bonus; the Traitor switches at the
reveal) are re-stated here as heuristics, not as an authority on legality.
"""

from __future__ import annotations

from collections.abc import Callable

from parlour.bots.base import Bot
from parlour.v1 import game_pb2
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["BOTS", "VerraeterGreedyBot"]

_EAGLE, _ROSE = pb.VERRAETER_HOUSE_EAGLE, pb.VERRAETER_HOUSE_ROSE
_TRAITOR = pb.VERRAETER_ACTION_TRAITOR
_BONUS = {pb.VERRAETER_ACTION_DIPLOMAT2: 2, pb.VERRAETER_ACTION_DIPLOMAT5: 5}
# Base preference for draft picks (value in rough VP); the Traitor is valued by the battle instead.
_DRAFT_VALUE = {
    pb.VERRAETER_ACTION_STRATEGIST: 3.0,
    pb.VERRAETER_ACTION_DIPLOMAT5: 2.6,
    pb.VERRAETER_ACTION_FARMER: 2.2,
    pb.VERRAETER_ACTION_DIPLOMAT2: 2.0,
    pb.VERRAETER_ACTION_BUILDER: 1.2,
    pb.VERRAETER_ACTION_MERCENARY: 1.5,
}


def _other(house: int) -> int:
    return _ROSE if house == _EAGLE else _EAGLE


class _Board:
    """The parts of a VerraeterView the heuristics need, for the bot's own seat."""

    def __init__(self, view: game_pb2.GameView) -> None:
        self.seat = view.seat
        self.v = view.verraeter
        self.me = self.v.seats[self.seat]
        self.vp = {t.id: list(t.vp) for t in self.v.land_types}

    def house_after_reveal(self, seat: int) -> int:
        """A seat's house for this battle as far as this seat knows (own Traitor switches)."""
        player = self.v.seats[seat]
        if player.action == _TRAITOR:
            return _other(player.house)
        return player.house

    def members(self, house: int) -> int:
        return sum(1 for s in range(len(self.v.seats)) if self.house_after_reveal(s) == house)

    def land_vp(self, position: int, winners: int) -> int:
        land = self.v.lands[position]
        table = self.vp.get(land.type, [0])
        return table[min(max(winners, 1), len(table)) - 1]

    def battle(self) -> tuple[dict[int, int], dict[int, int]]:
        """Known strength per house and the battlefield position per house."""
        first = self.v.battlefield
        second = (first + 1) % len(self.v.lands)
        strength: dict[int, int] = {}
        position: dict[int, int] = {}
        for p in (first, second):
            land = self.v.lands[p]
            strength[land.house] = land.base
            position[land.house] = p
        for s, player in enumerate(self.v.seats):
            house = self.house_after_reveal(s)
            strength[house] = strength.get(house, 0) + sum(player.played)
            strength[house] += _BONUS.get(player.action, 0) if player.action else 0
        return strength, position


class VerraeterGreedyBot(Bot):
    """Chooses the legal command with the best one-step heuristic score (ties: the first listed)."""

    name = "verraeter-greedy"

    def choose(self, view: game_pb2.GameView) -> game_pb2.Command:
        """The best-scoring command of ``view.legal_commands``."""
        board = _Board(view)
        best = view.legal_commands[0]
        best_score = float("-inf")
        for command in view.legal_commands:
            inner = command.verraeter
            kind = inner.WhichOneof("kind") or ""
            scorer = _SCORERS.get(kind)
            score = scorer(board, getattr(inner, kind)) if scorer else 0.0
            if score > best_score:
                best, best_score = command, score
        return best


def _place(board: _Board, c: pb.VerraeterPlaceBuilding) -> float:
    """Estates under own-house lands away from the front; trading posts late in the game."""
    v = board.v
    land = v.lands[c.position]
    ring = len(v.lands)
    neighbours = [v.lands[(c.position - 1) % ring].house, v.lands[(c.position + 1) % ring].house]
    safe = sum(1 for h in neighbours if h == land.house)
    own = 2.0 if land.house == board.me.house else 0.0
    late = v.round >= v.rounds - 2
    if c.side == pb.VERRAETER_BUILDING_SIDE_TRADING_POST:
        return (3.0 if late else -1.0) + 0.1 * safe
    return 1.0 + own + 0.5 * safe - (1.0 if late else 0.0)


def _flip(board: _Board, c: pb.VerraeterFlipBuilding) -> float:
    land = board.v.lands[c.position]
    to_post = land.building_side == pb.VERRAETER_BUILDING_SIDE_ESTATE
    late = board.v.round >= board.v.rounds - 1
    return 2.5 if to_post and late else -1.0


def _battlefield(board: _Board, c: pb.VerraeterChooseBattlefield) -> float:
    """A pair where my house's land is strong and the enemy land is worth much to my house."""
    v = board.v
    a, b = v.lands[c.position], v.lands[(c.position + 1) % len(v.lands)]
    mine, theirs = (a, b) if a.house == board.me.house else (b, a)
    k = board.members(board.me.house)
    target = theirs.position
    return board.land_vp(target, k) * 0.5 + (mine.base - theirs.base) * 0.4 + (2 * k - len(v.seats)) * 1.5


def _take(board: _Board, c: pb.VerraeterTakeActionCard) -> float:
    """Traitor when the other side looks stronger; otherwise the fixed preference."""
    if c.card == _TRAITOR:
        strength, _ = board.battle()
        mine = strength.get(board.me.house, 0)
        theirs = strength.get(_other(board.me.house), 0)
        return 1.0 + (theirs - mine) * 0.35
    return _DRAFT_VALUE.get(c.card, 1.0)


def _play(board: _Board, c: pb.VerraeterPlaySupply) -> float:
    """Play the cheapest set that wins the battle for my house with a safety margin; nothing if hopeless."""
    v = board.v
    strength, position = board.battle()
    house = board.house_after_reveal(board.seat)
    enemy = _other(house)
    played = sum(c.values)
    still_to_play = sum(1 for s in v.seats if not s.has_played and s.seat != board.seat)
    lead = strength.get(house, 0) + played - strength.get(enemy, 0)
    margin = 1 + 3 * still_to_play
    k = max(1, board.members(house))
    prize = board.land_vp(position[enemy], k)
    keep_value = 0.6 if v.round < v.rounds else 1.0
    if lead >= margin:
        return prize - keep_value * len(c.values) - 0.05 * played
    return -keep_value * len(c.values) - 0.05 * played + (prize * 0.4 if lead > 0 else 0.0)


def _declare(board: _Board, c: pb.VerraeterDeclareMercenary) -> float:
    strength, _ = board.battle()
    return float(strength.get(c.house, 0))


def _discard(board: _Board, c: pb.VerraeterDiscardCards) -> float:
    return -float(sum(c.values))


_SCORERS: dict[str, Callable[[_Board, object], float]] = {
    "place_building": _place,  # type: ignore[dict-item]  # each handler takes its own command message; the table maps kinds to them
    "flip_building": _flip,  # type: ignore[dict-item]  # each handler takes its own command message; the table maps kinds to them
    "pass_build": lambda board, c: 0.0,
    "choose_battlefield": _battlefield,  # type: ignore[dict-item]  # each handler takes its own command message; the table maps kinds to them
    "take_action_card": _take,  # type: ignore[dict-item]  # each handler takes its own command message; the table maps kinds to them
    "play_supply": _play,  # type: ignore[dict-item]  # each handler takes its own command message; the table maps kinds to them
    "declare_mercenary": _declare,  # type: ignore[dict-item]  # each handler takes its own command message; the table maps kinds to them
    "discard_cards": _discard,  # type: ignore[dict-item]  # each handler takes its own command message; the table maps kinds to them
}


#: This game's strategies for :func:`parlour.bots.make_bot` (strategy name -> bot class).
BOTS: dict[str, type[Bot]] = {"greedy": VerraeterGreedyBot}
