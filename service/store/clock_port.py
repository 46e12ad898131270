"""The clock store port: what the clocks need from wherever their state is kept.

A clocked game has a clock record (time control, per-seat banks, timeouts, dropped seats, when each
pending seat's clock started, and the versions up to which moves are charged and deadlines are set), and
there is one set of deadlines that every server process claims from. Every adapter passes
``tests/store/test_clock_store_contract.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["ClockRecord", "ClockStore", "Deadline", "Move"]


@dataclass(frozen=True)
class Deadline:
    """A seat must act at ``version`` of ``game_id``."""

    game_id: str
    seat: int
    version: int

    @property
    def member(self) -> str:
        """The sorted-set member naming this deadline."""
        return f"{self.game_id}|{self.seat}|{self.version}"

    @classmethod
    def parse(cls, member: str) -> Deadline:
        """The deadline a member names."""
        game_id, seat, version = member.split("|")
        return cls(game_id, int(seat), int(version))


@dataclass(frozen=True)
class Move:
    """A seat's command as the clock charges it: its first event's version, the seat, the time it took
    and whether the server played it because the time ran out."""

    version: int
    seat: int
    think_ms: int
    timed_out: bool


@dataclass(frozen=True)
class ClockRecord:
    """A game's clock as stored: the time control and each seat's bank, timeouts and dropped flag."""

    move_ms: int
    bank_ms: int
    increment_ms: int
    max_timeouts: int
    banks: dict[int, int]
    timeouts: dict[int, int]
    dropped: frozenset[int]
    since: dict[int, int]
    #: Moves up to this version are charged.
    charged: int = 0

    @classmethod
    def parse(cls, raw: dict[str, str]) -> ClockRecord:
        """The record of a clock hash's fields."""

        def per_seat(prefix: str) -> dict[int, int]:
            return {int(k[len(prefix) :]): int(v) for k, v in raw.items() if k.startswith(prefix)}

        return cls(
            move_ms=int(raw["move_ms"]),
            bank_ms=int(raw.get("bank_ms", 0)),
            increment_ms=int(raw.get("increment_ms", 0)),
            max_timeouts=int(raw.get("max_timeouts", 3)),
            banks=per_seat("bank:"),
            timeouts=per_seat("timeouts:"),
            dropped=frozenset(s for s, v in per_seat("dropped:").items() if v),
            since=per_seat("since:"),
            charged=int(raw.get("charged", 0)),
        )


class ClockStore(Protocol):
    """Clock records of games and the shared set of deadlines."""

    async def create(self, game_id: str, fields: dict[str, int], seats: int, version: int) -> bool:
        """Give a game at ``version`` its clock, unless it has one: the time control ``fields`` (with
        ``bank_ms``) and a full bank for each seat. True if created."""
        ...

    async def load(self, game_id: str) -> ClockRecord | None:
        """The game's clock, or None when the game has no clock."""
        ...

    async def turn_started(self, game_id: str, seat: int) -> int | None:
        """When the seat's clock started (see :meth:`start_turn`), or None when it is not running: the
        game has no clock, the seat's turn has not begun, or its last move was charged."""
        ...

    async def start_turn(self, game_id: str, seat: int, version: int, now_ms: int) -> int | None:
        """Start the seat's clock at ``now_ms`` unless it is running already; returns when it started, or
        None when the game is no longer at ``version``."""
        ...

    async def charge(self, game_id: str, version: int, moves: list[Move]) -> dict[int, bool]:
        """Charge ``moves`` (every move after the clock's ``charged`` version up to ``version``, in
        order); moves charged before are skipped. Charging a move ends its seat's turn (its clock start is
        forgotten). Returns the timeouts charged now: version -> whether that timeout dropped its seat."""
        ...

    async def mark_scheduled(self, game_id: str, version: int) -> None:
        """Record that the deadlines of ``version`` are set (the mark never moves back)."""
        ...

    async def finish(self, game_id: str) -> None:
        """Forget a game that is over (its clock stays, for the record)."""
        ...

    async def behind(self) -> list[tuple[str, int]]:
        """Running clocked games whose newest version has no deadlines set yet, as (game id, version)."""
        ...

    async def set_deadline(self, deadline: Deadline, due_ms: int) -> None:
        """Add (or move) a deadline."""
        ...

    async def claim_due(self, now_ms: int, limit: int, lease_ms: int) -> list[Deadline]:
        """Claim the deadlines due at ``now_ms`` (at most ``limit``) for ``lease_ms``: no other claim gets
        them until the lease ends."""
        ...

    async def done(self, deadline: Deadline) -> None:
        """Forget a deadline that was dealt with."""
        ...

    async def next_due(self) -> int | None:
        """The earliest due time (ms) of any deadline, or None when there is none."""
        ...

    async def pending(self) -> int:
        """How many deadlines are waiting (claimed or not)."""
        ...
