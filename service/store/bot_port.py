"""The bot store port: bot identities (the hash of each bot's key, the games it plays), whether each bot
is connected now, and each bot's stream of seat assignments. Every adapter passes
``tests/store/test_bot_store_contract.py``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = ["AssignmentRecord", "BotNotice", "BotStore"]


@dataclass(frozen=True)
class AssignmentRecord:
    """A seat given to a bot. ``token`` is the seat token the server acts with for the bot."""

    game_id: str
    game: str
    seat: int
    token: str
    tournament_id: str = ""

    def fields(self) -> dict[str, str]:
        """The stream entry's fields."""
        return {
            "game_id": self.game_id,
            "game": self.game,
            "seat": str(self.seat),
            "token": self.token,
            "tournament_id": self.tournament_id,
        }

    @classmethod
    def parse(cls, fields: dict[bytes, bytes]) -> AssignmentRecord:
        """The record of a stream entry."""
        text = {k.decode(): v.decode() for k, v in fields.items()}
        return cls(text["game_id"], text["game"], int(text["seat"]), text["token"], text.get("tournament_id", ""))


@dataclass(frozen=True)
class BotNotice:
    """Something a bot is told that is not about one seat (see BotService Notice): an entry of the same
    stream as its assignments, told to the sessions open when it is added."""

    tournament_id: str
    reason: str
    message: str

    def fields(self) -> dict[str, str]:
        """The stream entry's fields."""
        return {"notice": self.reason, "tournament_id": self.tournament_id, "message": self.message}


def parse_entry(fields: dict[bytes, bytes]) -> AssignmentRecord | BotNotice:
    """The assignment or notice of a bot stream's entry."""
    if b"notice" in fields:
        text = {k.decode(): v.decode() for k, v in fields.items()}
        return BotNotice(text["tournament_id"], text["notice"], text["message"])
    return AssignmentRecord.parse(fields)


class BotStore(Protocol):
    """Bot identities and assignments."""

    async def key_hash(self, name: str, new_hash: str | None, *, holder: str = "", hold_ms: int = 0) -> str | None:
        """The bot's stored key hash, set to ``new_hash`` first if the bot is new (None: a new bot stays
        unknown and None is returned). The first hash stored for a name wins. With ``holder``, a new name
        is only held: by ``holder`` (a session) for ``hold_ms``, then forgotten unless renewed or bound;
        without, it is kept for good."""
        ...

    async def hold(self, name: str, holder: str, hold_ms: int) -> bool:
        """Pass a held name to ``holder`` for ``hold_ms`` (a new session of the same bot); False, and no
        change, for a name kept for good or no name."""
        ...

    async def renew(self, name: str, holder: str, hold_ms: int) -> bool:
        """Extend ``holder``'s hold on the name to ``hold_ms`` from now; False if ``holder`` no longer holds
        it (another holder took it over, it was bound or forgotten)."""
        ...

    async def let_go(self, name: str, holder: str) -> bool:
        """Forget the name (key hash, games) if ``holder`` holds it; True if it did."""
        ...

    async def bind(self, name: str) -> bool:
        """Keep a held name for good, whoever holds it (a name kept for good stays so); False if there is
        no such name."""
        ...

    async def release(self, name: str) -> bool:
        """Forget the bot's key hash (its name can be registered anew); False if it had none."""
        ...

    async def set_games(self, name: str, games: list[str]) -> None:
        """Remember the games the bot said it plays (empty: any)."""
        ...

    async def games(self, name: str) -> list[str]:
        """The games the bot last said it plays (empty: any, or it never said)."""
        ...

    async def assign(self, name: str, record: AssignmentRecord) -> bool:
        """Add an assignment to the bot's stream, unless the bot already has that seat (atomically, so a
        scheduler that repeats the step after a crash never gives a seat twice). True if it was added."""
        ...

    async def assignments(
        self, name: str, after: str = "0", block_ms: int | None = None
    ) -> list[tuple[str, AssignmentRecord | BotNotice]]:
        """The stream's assignments and notices after stream id ``after`` as (id, entry); with ``block_ms``
        wait that long for one."""
        ...

    async def notify(self, name: str, notice: BotNotice) -> None:
        """Add a notice to the bot's stream (its sessions tell it to the bot)."""
        ...

    async def mark_present(self, name: str, session: str, ttl_ms: int) -> None:
        """The bot is connected (by ``session``) for ``ttl_ms`` from now, unless marked again."""
        ...

    async def mark_absent(self, name: str, session: str) -> None:
        """``session`` of the bot has ended: the bot is no longer present, unless a newer session marked it."""
        ...

    async def present(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` whose bots are connected now (marked present and not expired)."""
        ...

    async def drop_assignment(self, name: str, entry_id: str, record: AssignmentRecord) -> None:
        """Remove the assignment ``entry_id`` (``record``) from the bot's stream and its seat from the bot's
        assigned seats (its game is gone). Idempotent."""
        ...
