"""The sizes the server allows a client to ask for or to choose: the pages of ListGames and ListEvents
and the lengths of player, bot and API key names (flags of ``parlour serve``, each named in the sentence
that refuses a name over it).

A page size over the maximum is not refused: the reply holds the maximum (as the proto comments say), and
the next page token goes on from there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.app.errors import ServiceError

__all__ = ["SizeLimits", "name_pattern"]

#: The characters of a bot name and of an API key's name.
_NAME_CHARS = "A-Za-z0-9_.\\-"
_SAID = "letters, digits, '-', '_' or '.'"
_NAME = re.compile(f"[{_NAME_CHARS}]+")


@dataclass(frozen=True)
class SizeLimits:
    """The largest page and the longest names this server takes (each at least 1)."""

    #: Most games in one ListGames page (``--max-games-page``); the default page is 50 (or this, if smaller).
    max_games_page: int = 500
    #: Most events in one ListEvents page (``--max-events-page``); the default page is 100 (or this).
    max_events_page: int = 1000
    #: Longest player name of ClaimSeat (``--max-player-name-length``).
    max_player_name_length: int = 64
    #: Longest bot name (``--max-bot-name-length``).
    max_bot_name_length: int = 64
    #: Longest API key name (``--max-api-key-name-length``).
    max_api_key_name_length: int = 64

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be 1 or more, not {value}")

    def games_page(self, size: int) -> int:
        """The number of games a ListGames page of ``size`` holds (0: the default); request/invalid below 0."""
        return _page(size, default=50, limit=self.max_games_page, flag="--max-games-page")

    def events_page(self, size: int) -> int:
        """The number of events a ListEvents page of ``size`` holds (0: the default)."""
        return _page(size, default=100, limit=self.max_events_page, flag="--max-events-page")

    def check_player_name(self, name: str, *, limit: int | None = None) -> None:
        """Raise request/invalid unless ``name`` is 1 to ``limit`` (default: the player name limit)
        printable characters."""
        longest = self.max_player_name_length if limit is None else limit
        if not 1 <= len(name) <= longest or not name.isprintable():
            raise ServiceError(
                "request/invalid",
                f"player_name must be 1 to {longest} printable characters on this server (--max-player-name-length)",
            )

    def check_bot_name(self, name: str, *, any_length: bool = False) -> str:
        """``name`` if it is a valid bot name (of any length with ``any_length``); raises request/invalid
        otherwise."""
        longest = len(name) if any_length else self.max_bot_name_length
        if not (1 <= len(name) <= longest and _NAME.fullmatch(name)):
            raise ServiceError(
                "request/invalid",
                f"a bot name is 1 to {self.max_bot_name_length} {_SAID} on this server (--max-bot-name-length)",
            )
        return name

    def check_api_key_name(self, name: str) -> str:
        """``name`` if it is a valid API key name; raises request/invalid otherwise."""
        if not (1 <= len(name) <= self.max_api_key_name_length and _NAME.fullmatch(name)):
            raise ServiceError(
                "request/invalid",
                f"an API key's name is 1 to {self.max_api_key_name_length} {_SAID} on this server "
                "(--max-api-key-name-length)",
            )
        return name


def name_pattern(longest: int) -> str:
    """The regular expression of a bot or API key name of at most ``longest`` characters (unanchored)."""
    return f"[{_NAME_CHARS}]{{1,{longest}}}"


def _page(size: int, *, default: int, limit: int, flag: str) -> int:
    if size < 0:
        raise ServiceError(
            "request/invalid",
            f"page_size must be 0 or more (0: the default, {min(default, limit)}; a page holds at most {limit} "
            f"on this server, {flag}), not {size}",
        )
    return min(size or default, limit)
