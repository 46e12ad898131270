"""A game's time control as a value: time per move, bank, increment and timeouts before a seat is dropped,
validated once from the wire form (see ``clock.proto``); and how the think time recorded with a seat's
command is measured (:class:`ThinkTimes`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Protocol

from parlour.v1 import clock_pb2
from service.app.errors import ServiceError

__all__ = [
    "DEFAULT_MAX_TIMEOUTS",
    "MAX_BANK_MS",
    "MAX_MOVE_MS",
    "MAX_TIMEOUTS",
    "ClockRange",
    "SincePrevious",
    "ThinkTimes",
    "TimeControl",
    "think_since",
]

DEFAULT_MAX_TIMEOUTS = 3
#: The longest time per move any server takes (a server's own range, ClockRange, may be narrower).
MAX_MOVE_MS = 3_600_000
#: The largest bank and increment.
MAX_BANK_MS = 86_400_000
#: The most timeouts before a seat is dropped.
MAX_TIMEOUTS = 1000


@dataclass(frozen=True)
class TimeControl:
    """Time per move, an optional bank and increment (all ms), and timeouts before a seat is dropped."""

    move_ms: int
    bank_ms: int = 0
    increment_ms: int = 0
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS

    @classmethod
    def from_proto(cls, message: clock_pb2.TimeControl) -> TimeControl:
        """A validated time control; raises ServiceError ``request/invalid`` naming a bad field."""
        if not 1 <= message.move_ms <= MAX_MOVE_MS:
            raise ServiceError("request/invalid", f"move_ms must be 1 to {MAX_MOVE_MS}, not {message.move_ms}")
        for name in ("bank_ms", "increment_ms"):
            if not 0 <= getattr(message, name) <= MAX_BANK_MS:
                raise ServiceError(
                    "request/invalid", f"{name} must be 0 to {MAX_BANK_MS}, not {getattr(message, name)}"
                )
        if not 0 <= message.max_timeouts <= MAX_TIMEOUTS:
            raise ServiceError(
                "request/invalid", f"max_timeouts must be 0 to {MAX_TIMEOUTS}, not {message.max_timeouts}"
            )
        return cls(message.move_ms, message.bank_ms, message.increment_ms, message.max_timeouts or DEFAULT_MAX_TIMEOUTS)

    def to_proto(self) -> clock_pb2.TimeControl:
        """The wire form."""
        return clock_pb2.TimeControl(
            move_ms=self.move_ms, bank_ms=self.bank_ms, increment_ms=self.increment_ms, max_timeouts=self.max_timeouts
        )

    def to_json(self) -> str:
        """The stored form (a game's metadata keeps it)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TimeControl:
        """The time control :meth:`to_json` stored."""
        return cls(**json.loads(text))


@dataclass(frozen=True)
class ClockRange:
    """The time per move a server accepts (``parlour serve --min-move-ms``, ``--max-move-ms``): very short
    clocks make the server play timeouts in a loop, very long ones keep abandoned games' clocks alive."""

    min_move_ms: int = 1
    max_move_ms: int = MAX_MOVE_MS

    def __post_init__(self) -> None:
        """Raise ValueError (naming the flags) for a range no clock fits in."""
        if not 1 <= self.max_move_ms <= 3_600_000:
            raise ValueError(
                f"--max-move-ms must be 1 to 3600000 (a clock's longest move time), not {self.max_move_ms}"
            )
        if self.min_move_ms < 0:
            raise ValueError(f"--min-move-ms must be 0 or more, not {self.min_move_ms}")
        if self.min_move_ms > self.max_move_ms:
            raise ValueError(
                f"--min-move-ms {self.min_move_ms} is more than --max-move-ms {self.max_move_ms}, so every clock "
                "would be refused; give a minimum no larger than the maximum"
            )

    def check(self, control: TimeControl) -> None:
        """Raise request/invalid naming the range (and its flags) unless ``control``'s move time is in it."""
        if not self.min_move_ms <= control.move_ms <= self.max_move_ms:
            raise ServiceError(
                "request/invalid",
                f"move_ms must be {self.min_move_ms} to {self.max_move_ms} on this server (--min-move-ms, "
                f"--max-move-ms), not {control.move_ms}",
            )


def think_since(now_ms: int, since_ms: int) -> int:
    """The think time of a command stored at ``now_ms`` by a seat whose turn began at ``since_ms`` (0:
    unknown, and then no think time is recorded)."""
    return max(0, now_ms - since_ms) if since_ms > 0 else 0


class ThinkTimes(Protocol):
    """Measures the think time recorded with a seat's command (StoredEvent.think_ms). The clock keeper
    measures it from when the seat's clock started; a game without a clock measures it from the previous
    event."""

    async def think_ms(self, game_id: str, seat: int, version: int, now_ms: int, previous_ms: int) -> int:
        """The time ``seat`` took for its command decided at ``version`` and stored at ``now_ms``;
        ``previous_ms`` is when the event at ``version`` was stored (0: unknown)."""
        ...


class Deadlines(Protocol):
    """When the pending seats of a clocked game must have acted (the clock keeper knows)."""

    async def deadlines(self, game_id: str) -> dict[int, tuple[int, int]]:
        """By seat whose clock runs: (deadline in ms since the epoch, bank left in ms). Empty when the game
        has no running clock."""
        ...


class NoDeadlines:
    """:class:`Deadlines` with no clocks."""

    async def deadlines(self, game_id: str) -> dict[int, tuple[int, int]]:
        """None."""
        return {}


class SincePrevious:
    """:class:`ThinkTimes` with no clocks: every think time runs from the previous event."""

    async def think_ms(self, game_id: str, seat: int, version: int, now_ms: int, previous_ms: int) -> int:
        """``now_ms`` minus ``previous_ms`` (0 when that is unknown)."""
        return think_since(now_ms, previous_ms)
