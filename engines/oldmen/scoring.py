"""Scoring and the tie-break chain of Old Men of the Forest (rules section 4 and 5)."""

from __future__ import annotations

from engines.contract import Result, rank_by
from engines.oldmen.state import State
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["deal_scores", "match_result", "tie_break_key"]


def tie_break_key(score: int, vps: tuple[int, ...], length: int) -> tuple[int, ...]:
    """Score first, then the saved orangutans' VP from highest down (missing ones count 0)."""
    ordered = sorted(vps, reverse=True)
    return (score, *ordered, *[0] * (length - len(ordered)))


def deal_scores(state: State) -> list[pb.OldmenSeatScore]:
    """Each seat's score for the current deal."""
    return [
        pb.OldmenSeatScore(
            seat=seat,
            score=player.score(state.rules),
            orangutan_points=player.orangutan_points,
            penalty=player.penalty(state.rules),
            orangutan_vps=sorted((s.orangutan.vp for s in player.saved), reverse=True),
        )
        for seat, player in enumerate(state.players)
    ]


def match_result(state: State) -> Result:
    """Standings over every finished deal: total score, then the combined orangutan comparison; seats
    still equal share the win (D14, D15). Call after the last deal's scores are recorded."""
    seats = range(state.seats)
    length = max((len(p.match_vps) for p in state.players), default=0)
    keys = {s: tie_break_key(state.players[s].match_score, state.players[s].match_vps, length) for s in seats}
    return rank_by(list(seats), keys, {s: state.players[s].match_score for s in seats})
