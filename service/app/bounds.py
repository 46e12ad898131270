"""The bounds the server enforces on request fields, as JSON Schema keywords by proto field name, so the
API description (``/openapi.json``) states them: a request the description allows is one the server
takes (or refuses only for the state of things, never for its shape). The checks themselves live with
the use cases; ``tests/rest/test_openapi.py`` runs a schema fuzzer that holds the two together.
"""

from __future__ import annotations

from typing import Any

from engines.registry import GAMES
from service.app.sizes import SizeLimits, name_pattern

__all__ = ["FIELD_BOUNDS", "field_bounds"]

_NAME = {"type": "string", "pattern": "^[A-Za-z0-9_.\\-]{1,64}$"}
_GAMES = {"type": "string", "enum": [game.spec.name for game in GAMES]}
_NON_NEGATIVE_INT64 = {"pattern": "^[0-9]{1,18}$"}

#: Extra schema keywords of each bounded field (merged into its generated schema).
FIELD_BOUNDS: dict[str, dict[str, Any]] = {
    "parlour.v1.CreateGameRequest.game": _GAMES,
    "parlour.v1.ListGamesRequest.game": {"enum": ["", *_GAMES["enum"]]},
    "parlour.v1.ListGamesRequest.page_size": {"minimum": 0},
    "parlour.v1.ListGamesRequest.page_token": {"pattern": "^[0-9]{0,18}$"},
    "parlour.v1.ClaimSeatRequest.player_name": {"minLength": 1, "maxLength": 64},
    "parlour.v1.ClaimSeatRequest.seat": {"minimum": 0},
    "parlour.v1.SubmitCommandRequest.command_id": {"minLength": 1, "maxLength": 128},
    "parlour.v1.ListEventsRequest.page_size": {"minimum": 0},
    "parlour.v1.ListEventsRequest.from_version": _NON_NEGATIVE_INT64,
    "parlour.v1.WatchGameRequest.from_version": _NON_NEGATIVE_INT64,
    "parlour.v1.TournamentSettings.name": {"minLength": 1, "maxLength": 64},
    "parlour.v1.TournamentSettings.game": _GAMES,
    "parlour.v1.TournamentSettings.rounds": {"minimum": 1, "maximum": 100},
    "parlour.v1.TournamentSettings.max_parallel_games": {"minimum": 0, "maximum": 256},
    "parlour.v1.RegisterBotRequest.bot_name": _NAME,
    "parlour.v1.RegisterBotRequest.bot_key": {"minLength": 16, "maxLength": 256},
    "parlour.v1.CreateApiKeyRequest.name": _NAME,
    "parlour.v1.WatchTournamentRequest.from_version": _NON_NEGATIVE_INT64,
    "parlour.v1.TimeControl.move_ms": {"pattern": "^[1-9][0-9]{0,6}$"},
    "parlour.v1.TimeControl.bank_ms": {"pattern": "^[0-9]{1,8}$"},
    "parlour.v1.TimeControl.increment_ms": {"pattern": "^[0-9]{1,8}$"},
    "parlour.v1.TimeControl.max_timeouts": {"minimum": 0, "maximum": 1000},
}


def field_bounds(sizes: SizeLimits) -> dict[str, dict[str, Any]]:
    """:data:`FIELD_BOUNDS` with the name lengths of ``sizes`` (flags of ``parlour serve``), so the API
    description states the limits the server was started with."""
    player_name = "parlour.v1.ClaimSeatRequest.player_name"
    return {
        **FIELD_BOUNDS,
        player_name: {**FIELD_BOUNDS[player_name], "maxLength": sizes.max_player_name_length},
        "parlour.v1.RegisterBotRequest.bot_name": _name(sizes.max_bot_name_length),
        "parlour.v1.CreateApiKeyRequest.name": _name(sizes.max_api_key_name_length),
    }


def _name(longest: int) -> dict[str, str]:
    return {"type": "string", "pattern": f"^{name_pattern(longest)}$"}
