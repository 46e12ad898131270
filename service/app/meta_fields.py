"""The fields of a game's metadata that its commands keep current: whether it runs or is over, its
standings once over, and the seats that must act now. Every command writes them with its events (in the
same atomic append); :class:`~service.app.records.GameRecord` reads them back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from engines.contract import Result

__all__ = ["FINISHED", "PENDING", "RUNNING", "pending_meta", "pending_of", "result_meta"]

RUNNING = "running"
FINISHED = "finished"
#: The metadata field holding the seats that must act now (comma-separated), set with every command.
PENDING = "pending"


def pending_meta(seats: Iterable[int]) -> dict[str, str]:
    """The metadata field saying which seats must act now."""
    return {PENDING: ",".join(str(seat) for seat in sorted(seats))}


def pending_of(meta: Mapping[str, str]) -> tuple[int, ...]:
    """The seats the metadata says must act now."""
    text = meta.get(PENDING, "")
    return tuple(int(seat) for seat in text.split(",")) if text else ()


def result_meta(result: Result) -> dict[str, str]:
    """The metadata that marks a game finished with its standings."""
    standings = [{"seat": s.seat, "score": s.score, "rank": s.rank} for s in result.standings]
    return {"status": FINISHED, "result": json.dumps(standings)}
