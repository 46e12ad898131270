"""The flags of ``parlour serve`` that set the server's limits (each a field of
:class:`~service.config.Settings` with the same name), kept apart from the other flags."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from typing import Any

from service.config import Settings

__all__ = ["add_limit_flags", "limit_overrides"]


@dataclass(frozen=True)
class _Flag:
    """One limit: its Settings field, its type and its help text (the default is added from Settings)."""

    field: str
    kind: type
    text: str


_FLAGS: tuple[_Flag, ...] = (
    _Flag("max_tournament_bots", int, "most bots one tournament takes"),
    _Flag("max_round_games", int, "most games one round of a tournament may have"),
)


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """Add a ``--max-...``-style flag for every limit, defaulting to the Settings value."""
    defaults = {f.name: f.default for f in fields(Settings)}
    group = parser.add_argument_group("limits")
    for flag in _FLAGS:
        group.add_argument(
            "--" + flag.field.replace("_", "-"),
            type=flag.kind,
            default=None,
            metavar="N",
            help=f"{flag.text} (default {defaults[flag.field]})",
        )


def limit_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The limits given on the command line, by Settings field; raises SystemExit for a negative one."""
    given = {flag.field: getattr(args, flag.field) for flag in _FLAGS if getattr(args, flag.field) is not None}
    for name, value in given.items():
        if value < 0:
            raise SystemExit(f"parlour serve: --{name.replace('_', '-')} must be 0 or more, not {value}")
    return given
