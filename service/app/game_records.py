"""The games' records (their metadata: seats, status, results), cached in this process, and who may read or
act in a game: every use case starts here.

A cached record is good enough where the store re-checks what matters (an append refuses a finished
game's command; a claim refuses a taken seat); a token this process does not know, or a game whose
visibility changes (a duplicate deal's table), is read afresh.
"""

from __future__ import annotations

from engines.registry import Registry
from service.app.access import authorize_seat
from service.app.errors import ServiceError
from service.app.records import GameRecord
from service.store.port import GameMetadata

__all__ = ["GameRecords", "check_game_id", "no_game"]


class GameRecords:
    """The record of each game, from this process's cache or the store."""

    def __init__(self, store: GameMetadata, registry: Registry) -> None:
        """``registry`` holds the rules versions the records name."""
        self._store = store
        self._registry = registry
        self._cache: dict[str, GameRecord] = {}

    async def get(self, game_id: str, *, fresh: bool = False) -> GameRecord:
        """The game's record, from this process's cache unless ``fresh``; game/not_found if none."""
        if not fresh and game_id in self._cache:
            return self._cache[game_id]
        meta = await self._store.meta(check_game_id(game_id))
        if meta is None:
            raise no_game(game_id)
        return self.keep(game_id, meta)

    def keep(self, game_id: str, meta: dict[str, str]) -> GameRecord:
        """Cache and return the record of the metadata ``meta`` just stored or read."""
        record = self._cache[game_id] = GameRecord.parse(game_id, meta, self._registry)
        return record

    def forget(self, game_id: str) -> None:
        """Drop the cached record (the game changed in a way the next reader must see)."""
        self._cache.pop(game_id, None)

    async def authorized(self, game_id: str, seat: int | None, token: str | None, *, acting: bool) -> GameRecord:
        """The record, after checking the token as :func:`authorize_seat` says (re-reading the record once if
        the token is unknown here, as the seat may have been claimed through another server)."""
        record = await self.get(game_id)
        try:
            authorize_seat(record, seat, token, acting=acting)
        except ServiceError:
            record = await self.get(game_id, fresh=True)
            authorize_seat(record, seat, token, acting=acting)
        return record

    async def readable(self, game_id: str, seat: int | None, token: str | None) -> GameRecord:
        """The record, once the reader may read the game as ``seat`` (None: a spectator) with ``token``: the
        token is checked as :meth:`authorized` says, and a :attr:`~GameRecord.withheld` game (a duplicate
        deal's table that is over while another table of its deal is played) is read only by its own
        seats, each with its token (game/hidden for anyone else). The record is read afresh for a held game
        (whether it is over, or released, changes under a cached one)."""
        record = await self.authorized(game_id, seat, token, acting=False)
        if record.held:
            record = await self.get(game_id, fresh=True)
        if record.withheld and seat is None:
            raise ServiceError(
                "game/hidden",
                "this game is a table of a tournament deal whose other tables are still being played; until every "
                "table of the deal is over only its own seats can read it, each with its seat token",
            )
        return record


def check_game_id(game_id: str) -> str:
    """``game_id`` when it can be a game's id; game/not_found otherwise."""
    if not (1 <= len(game_id) <= 64 and game_id.isalnum()):
        raise ServiceError("game/not_found", f"there is no game {game_id[:64]!r}: game ids are letters and digits")
    return game_id


def no_game(game_id: str) -> ServiceError:
    """game/not_found for ``game_id``."""
    return ServiceError("game/not_found", f"there is no game {game_id!r}; ListGames shows the games")
