"""End-of-game scoring of Verräter: the trading-post bonus and the standings (rules section 4)."""

from __future__ import annotations

from engines.contract import Result, rank_by
from engines.verraeter.data import TRADING_POST
from engines.verraeter.state import State
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["final_bonuses", "result", "winners_of"]


def final_bonuses(state: State) -> list[pb.VerraeterScore]:
    """Per seat with trading posts on the board: min(hand size, the rules' cap) VP per trading post, whoever
    controls its land (D20). Seats whose bonus is 0 are left out."""
    cap = state.rules.trading_post_bonus_cap
    bonuses: list[pb.VerraeterScore] = []
    for seat, player in enumerate(state.players):
        posts = sum(1 for land in state.lands if land.owner == seat and land.side == TRADING_POST)
        points = posts * min(len(player.hand), cap)
        if points:
            bonuses.append(pb.VerraeterScore(seat=seat, points=points, reason=pb.VERRAETER_SCORE_REASON_TRADING_POST))
    return bonuses


def winners_of(totals: list[int]) -> list[int]:
    """The seats with the most VP; several share the victory (D23)."""
    best = max(totals)
    return [seat for seat, total in enumerate(totals) if total == best]


def result(state: State) -> Result:
    """Standings by final VP; equal VP share a rank (no tie-breaker, D23)."""
    score = {seat: player.vp for seat, player in enumerate(state.players)}
    return rank_by(list(score), score, score)
