"""Structured logs: JSON lines through structlog, with request context (game id, seat, command id) bound.

Logs never carry command or event payloads, nor the sentences of rejected requests (a rule error speaks
from the actor's view and may name its cards): a hidden choice or hand must not leak through them. Lines
name reasons, ids, kinds and versions only.
"""

from __future__ import annotations

import logging
import sys

import structlog
from structlog.tracebacks import ExceptionDictTransformer

__all__ = ["configure_logging", "enabled"]

#: The lowest level logged (structlog's default configuration logs everything).
_min_level = logging.NOTSET


def enabled(level: int) -> bool:
    """Whether a line at ``level`` (``logging.INFO``...) is written: hot paths skip building a filtered line
    (a filtered call still costs a logger's creation)."""
    return level >= _min_level


#: A logged exception (``exc_info``) as a structured traceback in the JSON line: type, message and frames
#: (file, line, function), never the frames' local variables, which may hold a game's hidden state.
_TRACEBACKS = structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False, use_rich=False))


def configure_logging(level: str = "info", *, json: bool = True) -> None:
    """Send structlog output to stderr as JSON (or as readable text when ``json`` is False)."""
    numeric = logging.getLevelNamesMapping().get(level.upper())
    if numeric is None:
        raise ValueError(f"unknown log level {level!r}; use debug, info, warning or error")
    global _min_level  # noqa: PLW0603  (one process-wide setting, like structlog's own configuration)
    _min_level = numeric
    rendering: list[structlog.types.Processor] = (
        [_TRACEBACKS, structlog.processors.JSONRenderer()] if json else [structlog.dev.ConsoleRenderer(colors=False)]
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *rendering,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
