"""The bounds the server enforces on requests, as JSON Schema keywords, so the API description
(``/openapi.json``) states them: a request the description allows is one the server takes, or refuses
only for the state of things (no such game or seat yet, a seat already taken, a quota), never for its
shape. The checks themselves live with the use cases; ``tests/rest/test_openapi.py`` runs a schema fuzzer
that holds the two together.

:func:`request_bounds` gives the keywords by full proto name: a field's (``parlour.v1.TimeControl.move_ms``)
are merged into that field's schema, a message's (``parlour.v1.CreateGameRequest``) into its object
schema, where property names are the JSON names. A ``description`` is added to the proto comment. Some
bounds are this server's settings (the clock range), so the document is made from the running server's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engines.registry import GAMES, REGISTRY
from parlour.v1 import game_pb2
from service.app.exports import EXPORT_FORMAT
from service.app.house_strategies import house_bot_strategies
from service.app.sizes import SizeLimits, name_pattern
from service.app.time_control import MAX_BANK_MS, MAX_MOVE_MS, MAX_TIMEOUTS, ClockRange

__all__ = ["MAX_SEATS", "digits_between", "player_name_pattern", "request_bounds"]

Schema = dict[str, Any]

#: The most seats any registered game has.
MAX_SEATS = max(game.spec.max_seats for game in GAMES)

_GAMES = {"type": "string", "enum": [game.spec.name for game in GAMES]}
#: A rules version of a new game or tournament: one this installation holds (of the request's game), or
#: empty for the current one.
_RULES_VERSIONS = {"type": "string", "enum": ["", *(game.spec.rules_version for game in REGISTRY.all())]}
_NON_NEGATIVE_INT64 = {"pattern": "^[0-9]{1,18}$"}
#: A seat number of some game (whether the game has that seat depends on the game: seat/not_found).
_SEAT = {"minimum": 0, "maximum": MAX_SEATS - 1}
#: What ``str.strip`` takes away (Python's whitespace), as a character class of regular expressions.
_PY_SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
#: A seed of 16 to 256 bytes in base64 (CreateGameRequest.seed; shorter seeds could be guessed).
_B64 = "[A-Za-z0-9+/]"
_TAIL = f"(?:{_B64}{{2}}==|{_B64}{{3}}=)"
_SEED = f"^(?:(?:{_B64}{{4}}){{5}}{_TAIL}|(?:{_B64}{{4}}){{6,84}}{_TAIL}?|(?:{_B64}{{4}}){{85}}(?:{_B64}{{2}}==)?)$"


def _name(longest: int) -> Schema:
    """A bot or API key name of at most ``longest`` characters."""
    return {"type": "string", "pattern": f"^{name_pattern(longest)}$"}


def digits_between(low: int, high: int) -> str:
    """A regular expression of the decimal numbers from ``low`` to ``high`` (0 <= low <= high), written
    without leading zeros: int64 fields travel as strings in JSON, and JSON Schema bounds only numbers."""
    if not 0 <= low <= high:
        raise ValueError(f"no numbers from {low} to {high}")
    parts: list[str] = []
    for width in range(len(str(low)), len(str(high)) + 1):
        first = max(low, 10 ** (width - 1) if width > 1 else 0)
        last = min(high, 10**width - 1)
        parts.extend(_same_width(str(first), str(last)))
    return "^(?:" + "|".join(parts) + ")$"


def _same_width(low: str, high: str) -> list[str]:
    """Alternatives matching the numbers from ``low`` to ``high``, both of the same number of digits."""
    if not low:
        return [""]
    if low[0] == high[0]:
        return [low[0] + _group(_same_width(low[1:], high[1:]))]
    rest = len(low) - 1
    any_rest = f"[0-9]{{{rest}}}" if rest else ""
    parts: list[str] = []
    start, end = int(low[0]), int(high[0])
    if low[1:].strip("0"):  # the first digit's numbers do not all fit: they go first, on their own
        parts.append(low[0] + _group(_same_width(low[1:], "9" * rest)))
        start += 1
    tail = []
    if high[1:].strip("9"):
        tail = [high[0] + _group(_same_width("0" * rest, high[1:]))]
        end -= 1
    if start <= end:
        parts.append((str(start) if start == end else f"[{start}-{end}]") + any_rest)
    return parts + tail


def _group(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _char_class(accepts: Callable[[str], bool]) -> str:
    """A character class of the characters of the Basic Multilingual Plane that ``accepts`` accepts (those
    beyond it travel as two UTF-16 units in some regular expression dialects, so none is named)."""
    ranges: list[tuple[int, int]] = []
    for code in range(0xFFFF + 1):
        if 0xD800 <= code <= 0xDFFF or not accepts(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "[" + "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges) + "]"


@functools.cache
def player_name_pattern(longest: int = 64) -> str:
    """The player names the server takes (``service.app.sizes.SizeLimits.check_player_name``, after the
    surrounding whitespace is stripped), as a regular expression: 1 to ``longest`` printable characters by
    this server's own Unicode database (so the pattern is made here, not written down: another Unicode
    version prints other characters), not starting or ending with a space (the server strips surrounding
    whitespace; the pattern leaves it out). Characters beyond the Basic Multilingual Plane (emoji, for one)
    are taken by the server but not named here."""
    inner = _char_class(str.isprintable)
    end = _char_class(lambda c: c.isprintable() and not c.isspace())
    return f"^{end}(?:{inner}{{0,{longest - 2}}}{end})?$" if longest > 1 else f"^{end}$"


def _int64(low: int, high: int, flags: str = "") -> Schema:
    """An int64 field's keywords for the numbers ``low`` to ``high`` (none when ``low > high``); with
    ``flags``, a description naming the range and what sets it."""
    if low > high:
        return {"not": {}, "description": f"This server takes no value here: its range ({flags}) is empty."}
    schema: Schema = {"pattern": digits_between(low, high)}
    if flags:
        schema["description"] = f"This server takes {low} to {high} ({flags})."
    return schema


def _unique_seats(seats: int) -> list[Schema]:
    """Each seat at most once among the house bots (an absent ``seat`` is seat 0)."""
    return [
        {
            "contains": {"properties": {"seat": {"const": seat}}, **({"required": ["seat"]} if seat else {})},
            "minContains": 0,
            "maxContains": 1,
        }
        for seat in range(seats)
    ]


def _per_game(game: str, seats: str, options: str, *, house_bots: str = "", smallest: str = "") -> Schema:
    """What each game takes: a seat count in its range, its options with their allowed values, one of its
    rules versions (``rulesVersion``, or none), with ``house_bots``, house bots on distinct seats of the
    table playing one of its strategies, and with ``smallest``, a smallest table of 0 (the seat count) or
    from the game's smallest to the seat count (the fields are named by their JSON names)."""
    variants: list[Schema] = []
    for registered in GAMES:
        spec = registered.spec
        allowed = {o.name: {"type": "string", "enum": list(o.allowed)} for o in spec.options}
        option_schema = {"type": "object", "properties": allowed, "additionalProperties": False}
        for count in range(spec.min_seats, spec.max_seats + 1):
            properties: Schema = {
                game: {"const": spec.name},
                seats: {"const": count},
                options: option_schema,
                "rulesVersion": {"enum": ["", *(g.spec.rules_version for g in REGISTRY.versions(spec.name))]},
            }
            if house_bots:
                bot = {
                    "properties": {
                        "seat": {"maximum": count - 1},
                        "strategy": {"enum": house_bot_strategies(spec.name)},
                    }
                }
                properties[house_bots] = {"items": bot, "maxItems": count, "allOf": _unique_seats(count)}
            if smallest:
                properties[smallest] = {"enum": [0, *range(spec.min_seats, count + 1)]}
            variants.append({"properties": properties, "required": [game, seats]})
    return {"oneOf": variants}


def _formats() -> list[Schema]:
    """A round robin or Swiss tournament plays 1 to 100 rounds and has no ladder settings; a ladder has no
    rounds."""
    return [
        {
            "properties": {
                "format": {"enum": ["TOURNAMENT_FORMAT_ROUND_ROBIN", "TOURNAMENT_FORMAT_SWISS"]},
                "rounds": {"minimum": 1},
                "minTableSize": {"const": 0},
                "maxGamesPerBot": {"const": 0},
                "maxBotsPerKey": {"const": 0},
                "pauseAfterTimeouts": {"const": 0},
            },
            "required": ["rounds"],
        },
        {"properties": {"format": {"const": "TOURNAMENT_FORMAT_LADDER"}, "rounds": {"const": 0}}},
    ]


def _one_command_each() -> dict[str, Schema]:
    """A command sets one of its fields: the game's, then the kind of command (the document says of every
    oneof that at most one of its fields is set)."""
    command = game_pb2.Command.DESCRIPTOR
    names = [command.full_name, *(field.message_type.full_name for field in command.fields if field.message_type)]
    return {name: {"minProperties": 1} for name in names}


def request_bounds(clocks: ClockRange, sizes: SizeLimits | None = None) -> dict[str, Schema]:
    """The keywords of every bounded field and message; ``clocks`` is this server's time per move and
    ``sizes`` its name lengths (flags of ``parlour serve``; the defaults when not given)."""
    sizes = sizes or SizeLimits()
    games = [game.spec.name for game in GAMES]
    bot_name, key_name = _name(sizes.max_bot_name_length), _name(sizes.max_api_key_name_length)
    move_low, move_high = max(1, clocks.min_move_ms), min(MAX_MOVE_MS, clocks.max_move_ms)
    clock = {"properties": {"moveMs": _int64(move_low, move_high, "--min-move-ms, --max-move-ms")}}
    return {
        "parlour.v1.CreateGameRequest": {
            "required": ["game", "seats"],
            **_per_game("game", "seats", "options", house_bots="houseBots"),
        },
        "parlour.v1.CreateGameRequest.game": _GAMES,
        "parlour.v1.GetGameRulesRequest.game": _GAMES,
        "parlour.v1.GetGameRulesRequest.rules_version": _RULES_VERSIONS,
        "parlour.v1.CreateGameRequest.seats": {"minimum": min(g.spec.min_seats for g in GAMES), "maximum": MAX_SEATS},
        "parlour.v1.CreateGameRequest.seed": {"pattern": _SEED},
        "parlour.v1.CreateGameRequest.rules_version": _RULES_VERSIONS,
        "parlour.v1.HouseBot": {"required": ["strategy"]},
        "parlour.v1.HouseBot.seat": _SEAT,
        "parlour.v1.HouseBot.strategy": {"enum": sorted({s for g in games for s in house_bot_strategies(g)})},
        "parlour.v1.ListGamesRequest.game": {"enum": ["", *games]},
        "parlour.v1.ListGamesRequest.page_size": {"minimum": 0},
        "parlour.v1.ListGamesRequest.page_token": {"pattern": "^[0-9]{0,18}$"},
        "parlour.v1.ClaimSeatRequest": {"required": ["playerName"]},
        "parlour.v1.ClaimSeatRequest.player_name": {
            "pattern": player_name_pattern(sizes.max_player_name_length),
            "description": "Surrounding whitespace is stripped; the rest must be printable (the pattern names "
            "the printable characters of the Basic Multilingual Plane by this server's Unicode database).",
        },
        "parlour.v1.ClaimSeatRequest.seat": _SEAT,
        "parlour.v1.GetViewRequest.seat": _SEAT,
        "parlour.v1.GetViewRequest.at_version": {"pattern": "^[1-9][0-9]{0,17}$"},
        "parlour.v1.SubmitCommandRequest": {"required": ["command", "commandId"]},
        "parlour.v1.SubmitCommandRequest.seat": _SEAT,
        "parlour.v1.SubmitCommandRequest.command_id": {"minLength": 1, "maxLength": 128},
        **_one_command_each(),
        "parlour.v1.WatchGameRequest.from_version": _NON_NEGATIVE_INT64,
        "parlour.v1.WatchGameRequest.seat": _SEAT,
        "parlour.v1.ListEventsRequest.page_size": {"minimum": 0},
        "parlour.v1.ListEventsRequest.from_version": _NON_NEGATIVE_INT64,
        "parlour.v1.ListEventsRequest.seat": _SEAT,
        "parlour.v1.CreateStreamTicketRequest.seat": _SEAT,
        "parlour.v1.GameExport": {"required": ["format"]},
        "parlour.v1.GameExport.format": {"const": EXPORT_FORMAT},
        "parlour.v1.VerifyGameRequest": {"required": ["export"]},
        "parlour.v1.ViewReplayRequest": {"required": ["export"]},
        "parlour.v1.ViewReplayRequest.at_version": _NON_NEGATIVE_INT64,
        "parlour.v1.ViewReplayRequest.seat": _SEAT,
        "parlour.v1.ImportGameRequest": {"required": ["export"]},
        "parlour.v1.CreateTournamentRequest": {"required": ["settings"]},
        "parlour.v1.TournamentSettings": {
            "required": ["name", "game", "tableSize", "format"],
            **_per_game("game", "tableSize", "options", smallest="minTableSize"),
            "anyOf": _formats(),
        },
        "parlour.v1.TournamentSettings.name": {"minLength": 1, "maxLength": 64, "pattern": f"[^{_PY_SPACE}]"},
        "parlour.v1.TournamentSettings.game": _GAMES,
        "parlour.v1.TournamentSettings.table_size": {
            "minimum": min(g.spec.min_seats for g in GAMES),
            "maximum": MAX_SEATS,
        },
        "parlour.v1.TournamentSettings.rules_version": _RULES_VERSIONS,
        "parlour.v1.TournamentSettings.format": {"not": {"enum": ["TOURNAMENT_FORMAT_UNSPECIFIED"]}},
        "parlour.v1.TournamentSettings.rounds": {"minimum": 0, "maximum": 100},
        "parlour.v1.TournamentSettings.max_games_per_bot": {"minimum": 0, "maximum": 16},
        "parlour.v1.TournamentSettings.max_bots_per_key": {"minimum": 0, "maximum": 10_000},
        "parlour.v1.TournamentSettings.pause_after_timeouts": {"minimum": 0, "maximum": 100},
        "parlour.v1.TournamentSettings.max_parallel_games": {"minimum": 0, "maximum": 256},
        "parlour.v1.RegisterBotRequest": {"required": ["botName", "botKey"]},
        "parlour.v1.RegisterBotRequest.bot_name": bot_name,
        "parlour.v1.RegisterBotRequest.bot_key": {"minLength": 16, "maxLength": 256},
        "parlour.v1.ListAssignmentsRequest.bot_name": bot_name,
        "parlour.v1.CreateApiKeyRequest": {"required": ["name"]},
        "parlour.v1.CreateApiKeyRequest.name": key_name,
        "parlour.v1.RevokeApiKeyRequest.name": key_name,
        "parlour.v1.ReleaseBotNameRequest.bot_name": bot_name,
        "parlour.v1.RevokeSeatTokenRequest.seat": _SEAT,
        "parlour.v1.WatchTournamentRequest.from_version": _NON_NEGATIVE_INT64,
        # Any game's time control (replies show them too: games made under another range stay as made) ...
        "parlour.v1.TimeControl": {"required": ["moveMs"]},
        "parlour.v1.TimeControl.move_ms": _int64(1, MAX_MOVE_MS),
        "parlour.v1.TimeControl.bank_ms": _int64(0, MAX_BANK_MS),
        "parlour.v1.TimeControl.increment_ms": _int64(0, MAX_BANK_MS),
        "parlour.v1.TimeControl.max_timeouts": {"minimum": 0, "maximum": MAX_TIMEOUTS},
        # ... and the time per move this server takes for a new game or tournament (its flags).
        "parlour.v1.CreateGameRequest.time_control": clock,
        "parlour.v1.CreateTournamentRequest.settings": {"properties": {"timeControl": clock}},
    }
