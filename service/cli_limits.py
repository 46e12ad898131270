"""The flags of ``parlour serve`` that set the server's limits (each a field of
:class:`~service.config.Settings` with the same name), kept apart from the other flags."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from service.app.limits import check_rate
from service.config import Settings

__all__ = ["add_key_flag", "add_limit_flags", "check_limits", "limit_overrides"]


@dataclass(frozen=True)
class _Flag:
    """One limit: its Settings field, its type and its help text (the default is added from Settings)."""

    field: str
    kind: type
    text: str
    #: What the value looks like in the help (default: RATE for a text, N for a number).
    metavar: str = ""


_FLAGS: tuple[_Flag, ...] = (
    _Flag("max_tournament_bots", int, "most bots one tournament takes"),
    _Flag("max_round_games", int, "most games one round of a tournament may have"),
    _Flag("rate_create_games", str, "games one client may create (CreateGame, ImportGame), e.g. 300/minute; 0: none"),
    _Flag("rate_claim_seats", str, "seats one client may claim, e.g. 1200/minute; 0: no limit"),
    _Flag("rate_joins", str, "bots one client may register in tournaments and ladders, e.g. 120/minute; 0: none"),
    _Flag("rate_calls", str, "calls of any kind one client may make, e.g. 1000/second; 0: no limit"),
    _Flag("max_streams_per_client", int, "streams (watches, bot connections) one client may hold open; 0: no limit"),
    _Flag(
        "max_streams",
        int,
        "streams this process holds open over all clients (its Redis pool is this plus 1000 connections); 0: no "
        "limit (and a pool of 2000)",
    ),
    _Flag("stream_stall_seconds", float, "a stream whose client reads nothing for this long is ended; 0: never"),
    _Flag("abandon_after_hours", float, "a running game nobody moved in for this long ends as abandoned; 0: never"),
    _Flag("finished_ttl_hours", float, "a finished game is deleted this long after its end; 0: never"),
    _Flag("retention_seconds", float, "time between two retention runs"),
    _Flag("min_move_ms", int, "shortest time per move a game's clock may have, in ms"),
    _Flag("max_move_ms", int, "longest time per move a game's clock may have, in ms"),
    _Flag("max_games_page", int, "most games one ListGames page holds; a larger page_size gets this many"),
    _Flag("max_events_page", int, "most events one ListEvents page holds; a larger page_size gets this many"),
    _Flag("max_player_name_length", int, "longest player name a seat may be claimed with"),
    _Flag("max_bot_name_length", int, "longest bot name"),
    _Flag("max_api_key_name_length", int, "longest name of an API key"),
    _Flag("max_export_bytes", int, "largest game export a request may carry (VerifyGame, ImportGame, ViewReplay)"),
    _Flag(
        "trusted_proxies",
        str,
        "proxies (networks, comma-separated) whose X-Forwarded-For names the client the quotas count, e.g. "
        "10.0.0.0/8; from any other peer the header is ignored",
        metavar="CIDR[,CIDR]",
    ),
)
_RATES = frozenset({"rate_create_games", "rate_claim_seats", "rate_joins", "rate_calls"})


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """Add a ``--max-...``-style flag for every limit, defaulting to the Settings value."""
    defaults = {f.name: f.default for f in fields(Settings)}
    group = parser.add_argument_group("limits")
    add_key_flag(group)  # type: ignore[arg-type]  # an argument group takes the same add_argument
    add_export_flag(group)  # type: ignore[arg-type]  # an argument group takes the same add_argument
    for flag in _FLAGS:
        group.add_argument(
            "--" + flag.field.replace("_", "-"),
            type=flag.kind,
            default=None,
            metavar=flag.metavar or ("RATE" if flag.kind is str else "N"),
            help=f"{flag.text} (default {defaults[flag.field] or 'none'})",
        )


def add_export_flag(parser: argparse.ArgumentParser) -> None:
    """``--export-dir``."""
    parser.add_argument(
        "--export-dir", metavar="DIR", default=None, help="export each expired game here before deleting it"
    )


def add_key_flag(parser: argparse.ArgumentParser) -> None:
    """``--require-api-key``."""
    parser.add_argument(
        "--require-api-key",
        action="store_true",
        default=None,
        help="creating games, claiming seats and registering new bot names need an API key (x-parlour-api-key; "
        "the admin makes keys with AdminService); default: keys are optional",
    )


def limit_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The limits given on the command line, by Settings field; raises SystemExit for a negative or
    infinite number and a rate that is not one."""
    given: dict[str, Any] = {
        flag.field: getattr(args, flag.field) for flag in _FLAGS if getattr(args, flag.field) is not None
    }
    if getattr(args, "require_api_key", None):
        given["require_api_key"] = True
    if getattr(args, "export_dir", None):
        given["export_dir"] = Path(args.export_dir)
    for name, value in given.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, float) and not math.isfinite(value):
            raise SystemExit(f"parlour serve: {flag} must be a finite number, not {value}")
        if isinstance(value, int | float) and value < 0:
            raise SystemExit(f"parlour serve: {flag} must be 0 or more, not {value}")
        if name in _RATES:
            try:
                check_rate(value, flag)
            except ValueError as error:
                raise SystemExit(f"parlour serve: {error}") from None
    return given


def check_limits(settings: Settings) -> None:
    """Raise SystemExit with one sentence naming the flags when the limits of ``settings`` (the flags
    over the defaults) contradict each other or cannot work: a clock range no clock fits in, retention
    runs without a pause, a page or name limit below 1, a trusted proxy that is not a network."""
    # The parts that refuse such values themselves, imported only for `parlour serve` (not every command).
    from service.api.forwarded import TrustedProxies
    from service.app.retention import RetentionSettings
    from service.app.time_control import ClockRange
    from service.bootstrap import size_limits

    try:
        ClockRange(settings.min_move_ms, settings.max_move_ms)
        RetentionSettings(interval_seconds=settings.retention_seconds)
        size_limits(settings)
        TrustedProxies.parse(settings.trusted_proxies)
    except ValueError as error:
        raise SystemExit(f"parlour serve: {error}") from None
