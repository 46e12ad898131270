"""How large a tournament may grow: a maximum field of bots, and a maximum number of games per round (a
round robin's games grow with the field's size to the power of the table size, and the scheduler plans
and tracks every one of them), so that one large tournament cannot slow the rest of the server."""

from __future__ import annotations

import math
from dataclasses import dataclass

from parlour.v1 import tournament_service_pb2 as pb
from service.app.errors import ServiceError

__all__ = ["FieldLimits", "tables_per_round"]


def tables_per_round(settings: pb.TournamentSettings, bots: int) -> int:
    """The number of games in each round of a tournament of ``bots`` bots (as ``plan_round`` plans them;
    a ladder's: the most it may run at once)."""
    size = settings.table_size
    if size < 1:
        return 0
    if settings.format == pb.TOURNAMENT_FORMAT_LADDER:  # at most every bot at its cap of tables at once
        return bots * max(settings.max_games_per_bot, 1) // (settings.min_table_size or size)
    groups = bots // size if settings.format == pb.TOURNAMENT_FORMAT_SWISS else math.comb(bots, size)
    return groups * (size if settings.duplicate_seeds else 1)


@dataclass(frozen=True)
class FieldLimits:
    """The server's limits on a tournament's field (flags of ``parlour serve``)."""

    #: Most bots one tournament takes.
    max_bots: int = 64
    #: Most games one round may have.
    max_round_games: int = 1000

    def check_room(self, settings: pb.TournamentSettings, registered: int) -> None:
        """Raise tournament/full unless one more bot fits beside ``registered`` bots."""
        if registered >= self.max_bots:
            raise ServiceError(
                "tournament/full", f"the tournament is full: this server takes at most {self.max_bots} bots in one"
            )
        games = tables_per_round(settings, registered + 1)
        if games > self.max_round_games:
            raise ServiceError(
                "tournament/full",
                f"the tournament is full: with {registered + 1} bots a round would have {games} games and this "
                f"server plays at most {self.max_round_games} per round",
            )
