"""Which bots play which deal in a round: round robin or Swiss, with seats rotated, and each deal's seed
and each seat's token derived from the tournament's secret (so a scheduler that resumes after a restart
makes the same plan and can hand out a seat it claimed just before the restart)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
from dataclasses import dataclass

from parlour.v1 import tournament_service_pb2 as pb
from service.app.tournaments.state import TournamentState

__all__ = ["PlannedTable", "plan_round", "seat_token"]


@dataclass(frozen=True)
class PlannedTable:
    """One game of a round: its index, the bot of each seat, the deal's seed and the deal's number in the
    round (with duplicate seeds, the rotations of one deal share it; on a ladder, with the rotation)."""

    index: int
    seats: tuple[str, ...]
    seed: bytes
    deal: int = 0
    rotation: int = 0


def plan_round(state: TournamentState, secret: bytes) -> list[PlannedTable]:
    """The games of the current round (``state.round``), from the bot order at the round's start.

    Round robin: every group of ``table_size`` bots (in registration order). Swiss: neighbours in the
    standings at the round's start. With duplicate seeds each group plays its deal once per seat
    rotation; otherwise once, rotated by the round number.
    """
    size = state.settings.table_size
    if state.settings.format == pb.TOURNAMENT_FORMAT_SWISS:
        order = list(state.round_order)
        groups = [tuple(order[i : i + size]) for i in range(0, len(order) - size + 1, size)]
    else:
        groups = list(itertools.combinations(list(state.bots), size))
    tables: list[PlannedTable] = []
    for number, group in enumerate(groups):
        seed = hashlib.sha256(secret + f":{state.round}:{number}".encode()).digest()
        shifts = range(size) if state.settings.duplicate_seeds else [(state.round - 1) % size]
        for shift in shifts:
            seats = group[shift:] + group[:shift]
            tables.append(PlannedTable(len(tables), seats, seed, number))
    return tables


def seat_token(secret: bytes, game_id: str, seat: int) -> str:
    """The token the scheduler claims ``seat`` of ``game_id`` with: secret to anyone without the
    tournament's secret, and the same every time it is derived."""
    digest = hmac.new(secret, f"seat:{game_id}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
