"""Retention: running games nobody moves in are ended as abandoned, and finished games expire (written
to an export file first, when an export directory is configured). An abandoned game that never had every
seat claimed never started: it is deleted instead of played out (see :meth:`Games.abandon`).

Every server process runs it (``--abandon-after-hours``, ``--finished-ttl-hours``, ``--export-dir``,
every ``--retention-seconds``); both steps are safe to run in several processes at once. Each run pages
through the running and finished games' indexes, so its cost grows with the number of games kept, once
per interval, off the request path.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from google.protobuf import json_format

from parlour.v1 import game_pb2
from service.app.errors import ServiceError
from service.app.games import Games
from service.app.replays import Replays

__all__ = ["Retention", "RetentionReport", "RetentionSettings"]

log = structlog.get_logger("parlour.retention")

_HOUR_MS = 3_600_000


@dataclass(frozen=True)
class RetentionSettings:
    """When games are ended and forgotten (0 hours: never)."""

    abandon_after_hours: float = 24.0
    finished_ttl_hours: float = 720.0
    #: Where finished games are exported before they are deleted (None: no export).
    export_dir: Path | None = None
    interval_seconds: float = 600.0

    def __post_init__(self) -> None:
        """Raise ValueError (naming the flag) for an interval of 0 or less: the runs would follow each
        other without a pause, paging every game's index over and over."""
        if not 0 < self.interval_seconds < math.inf:
            raise ValueError(
                f"--retention-seconds must be more than 0 (the time between two retention runs), not "
                f"{self.interval_seconds}; --abandon-after-hours 0 and --finished-ttl-hours 0 turn retention off"
            )


@dataclass
class RetentionReport:
    """What one run did: the games it ended as abandoned (played out), deleted unstarted (abandoned before
    every seat was claimed), expired (deleted once finished long enough), and the files it exported."""

    abandoned: list[str] = field(default_factory=list)
    unstarted: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    exported: list[Path] = field(default_factory=list)


class Retention:
    """The retention runs of one server process."""

    def __init__(
        self, games: Games, replays: Replays, now_ms: Callable[[], int], settings: RetentionSettings | None = None
    ) -> None:
        self._games = games
        self._replays = replays
        self._now_ms = now_ms
        self.settings = settings or RetentionSettings()
        self._closed = False

    def close(self) -> None:
        """Make :meth:`run` return at its next turn."""
        self._closed = True

    async def run(self) -> None:
        """A retention run every interval, until closed or cancelled (a failed run is logged)."""
        while not self._closed:
            try:
                await self.run_once()
            except Exception:
                log.exception("retention run failed")
            await asyncio.sleep(self.settings.interval_seconds)

    async def run_once(self) -> RetentionReport:
        """End the abandoned games, then delete (and export) the expired ones."""
        report = RetentionReport()
        now = self._now_ms()
        if self.settings.abandon_after_hours > 0:
            cutoff = now - int(self.settings.abandon_after_hours * _HOUR_MS)
            for game_id in await self._older(game_pb2.GAME_STATUS_RUNNING, cutoff):
                outcome = await self._games.abandon(game_id, now)
                if outcome == "ended":
                    report.abandoned.append(game_id)
                elif outcome == "deleted":
                    report.unstarted.append(game_id)
        if self.settings.finished_ttl_hours > 0:
            cutoff = now - int(self.settings.finished_ttl_hours * _HOUR_MS)
            for game_id in await self._older(game_pb2.GAME_STATUS_FINISHED, cutoff):
                exported = await self._export(game_id)
                if exported is not None:
                    report.exported.append(exported)
                await self._games.forget(game_id)
                report.expired.append(game_id)
        if report.abandoned or report.unstarted or report.expired:
            log.info(
                "retention run",
                abandoned=len(report.abandoned),
                unstarted=len(report.unstarted),
                expired=len(report.expired),
            )
        return report

    async def _older(self, status: game_pb2.GameStatus.ValueType, cutoff_ms: int) -> list[str]:
        """The ids of the games with ``status`` last changed before ``cutoff_ms`` (all pages read first,
        so acting on them does not shift the pages), but for withheld tables: a duplicate deal's table
        waits for its deal (its tournament releases it, then it expires like any game, with its export)."""
        found: list[str] = []
        token = ""
        while True:
            page, token = await self._games.list_games("", status, 500, token)
            found += [g.game_id for g in page if g.updated_at.ToMilliseconds() < cutoff_ms and not g.withheld]
            if not token:
                return found

    async def _export(self, game_id: str) -> Path | None:
        directory = self.settings.export_dir
        if directory is None:
            return None
        try:
            export = await self._replays.export(game_id)
        except ServiceError as error:  # e.g. a game whose policy keeps its secrets: nothing to publish
            log.info("expired game not exported", game_id=game_id, reason=error.reason)
            return None
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{game_id}.parlour.json"
        with contextlib.suppress(FileExistsError):
            path.write_text(json_format.MessageToJson(export), encoding="utf-8")
        return path
