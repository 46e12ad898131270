"""Replays: export a finished game, verify an export by re-running it, import it into this server."""

from __future__ import annotations

import json
import secrets

import structlog

from engines.contract import AnyGame, GameConfig, Result, SeatResult, fold
from engines.envelope import view_envelope
from engines.errors import GameError
from engines.registry import REGISTRY, Registry
from engines.verify import verify_log
from parlour.v1 import game_pb2, replay_service_pb2
from service.app.commands import command_digest
from service.app.errors import ServiceError, quoted
from service.app.exports import EXPORT_FORMAT, build_export, chain_problem, logged_events
from service.app.games import Games
from service.app.meta_fields import result_meta
from service.app.records import SeatClaim, new_meta
from service.store.port import LoggedGames, NewCommand, NewEvent

__all__ = ["Replays", "verify_export", "verify_locally"]

log = structlog.get_logger("parlour.replays")
_MAX_EVENTS = 100_000


def _verdict(ok: bool, version: int, message: str, rules: str = "") -> replay_service_pb2.VerifyGameResponse:
    return replay_service_pb2.VerifyGameResponse(
        verified=ok, first_bad_version=version, message=message, rules_version=rules
    )


def verify_export(
    export: replay_service_pb2.GameExport, registry: Registry = REGISTRY
) -> replay_service_pb2.VerifyGameResponse:
    """Re-run ``export`` through the rules version it was played under (``registry`` must hold it) and
    compare everything (see replay_service.proto): the hash chain, the seed against its commitment, every
    event, the result. Pure: no store, no server. Raises ServiceError ``request/invalid`` for a file that is
    not a Parlour export."""
    game, problem = _game_of(export, registry)
    if problem is not None:
        return problem
    assert game is not None
    rules = game.spec.rules_version
    broken = chain_problem(export)
    if broken:
        return _verdict(False, *broken, rules)
    try:
        config = game.spec.config(export.seats, dict(export.options))
    except GameError as error:
        return _verdict(False, 0, f"the export's seats or options are not valid under {rules}: {error}", rules)
    verdict = verify_log(game, config, export.seed, logged_events(game, export), salt=export.seed_salt)
    if not verdict.ok:
        return _verdict(False, verdict.first_bad_version, f"under the rules {rules}: {verdict.message}", rules)
    result = game.result(verdict.state)
    assert result is not None
    recomputed = [(s.seat, s.score, s.rank) for s in result.standings]
    recorded = [(r.seat, r.score, r.rank) for r in export.results]
    if recomputed != recorded:
        last = export.entries[-1].event.version
        message = f"the recorded result {recorded} differs from the rules {rules}' {recomputed}"
        return _verdict(False, last, message, rules)
    message = f"re-run under the rules {rules}: {verdict.message}; the seed matches its commitment and the result too"
    return _verdict(True, 0, message, rules)


def _game_of(
    export: replay_service_pb2.GameExport, registry: Registry
) -> tuple[AnyGame | None, replay_service_pb2.VerifyGameResponse | None]:
    """The engine of the export's own rules version, or the verdict that says why there is none here."""
    if export.format != EXPORT_FORMAT:
        raise ServiceError("request/invalid", f"this is not a Parlour export (format {quoted(export.format)})")
    held = registry.versions(export.game)
    if not held:
        return None, _verdict(False, 0, f"not verifiable here: the rules here have no game {quoted(export.game)}")
    game = registry.get(export.game, export.rules_version)
    if game is None:
        message = (
            f"not verifiable here: the game was played under the rules {quoted(export.rules_version)}, which "
            f"are not installed here (these hold {', '.join(g.spec.rules_version for g in held)}); verify it with "
            "a release that has them"
        )
        return None, _verdict(False, 0, message)
    if not export.entries:
        return None, _verdict(False, 0, "the export has no events", game.spec.rules_version)
    return game, None


def verify_locally(export: replay_service_pb2.GameExport) -> replay_service_pb2.VerifyGameResponse:
    """The ``parlour.verifiers`` entry point: :func:`verify_export` in this process, offline, with every
    rules version installed, and a file that is not a Parlour export reported as not verified (the
    ``parlour replay verify`` command of the SDK finds it when the server package is installed)."""
    try:
        return verify_export(export)
    except ServiceError as error:
        return _verdict(False, 0, error.message)


class Replays:
    """Export, verify and import finished games."""

    def __init__(self, store: LoggedGames, games: Games) -> None:
        """Exports read ``store``; verification uses the rules versions of ``games``' registry."""
        self._store = store
        self._games = games

    async def export(self, game_id: str) -> replay_service_pb2.GameExport:
        """The self-contained record of a finished game whose policy reveals it after the end."""
        record = await self._games.record(game_id)
        if not record.finished:
            raise ServiceError("game/not_over", "the game is still running; export it once it is over")
        if record.held:
            raise ServiceError(
                "game/hidden",
                "this game is a table of a tournament deal whose other tables are still being played; it stays "
                "hidden, and has no export, until every table of the deal is over",
            )
        if not record.reveal_after_end:
            raise ServiceError(
                "game/hidden",
                "this game keeps its hidden information after the end, so it has no export: its seed is never "
                "revealed and only this server can verify it",
            )
        stored = await self._store.read(game_id, 1, _MAX_EVENTS)
        return build_export(record, stored)

    def verify(self, export: replay_service_pb2.GameExport) -> replay_service_pb2.VerifyGameResponse:
        """Re-run ``export`` through the rules version it was played under and compare everything (see
        replay_service.proto)."""
        return verify_export(export, self._games.registry)

    def view(self, export: replay_service_pb2.GameExport, at_version: int, seat: int | None) -> game_pb2.GameView:
        """The view of a verified export just after event ``at_version`` (0: the last), everything shown (an
        export is of a public game). Like GetView, a version inside one command's events gives the view after
        all of them (views exist at command boundaries only)."""
        verdict = self.verify(export)
        if not verdict.verified:
            raise ServiceError("replay/not_verified", f"the export does not verify: {verdict.message}")
        game = self._games.registry.get(export.game, export.rules_version)
        assert game is not None  # it verified
        last = len(export.entries)
        version = at_version or last
        if version < 1:
            raise ServiceError("request/invalid", f"at_version must be 0 (the last) or more, not {at_version}")
        if version > last:
            raise ServiceError("version/not_found", f"the export has no version {version}: its last is {last}")
        if seat is not None and seat < 0:
            raise ServiceError("request/invalid", f"seat {seat} does not exist: seats are numbered from 0")
        if seat is not None and seat >= export.seats:
            raise ServiceError("seat/not_found", f"seat {seat} does not exist: seats are 0 to {export.seats - 1}")
        version = _boundary(export, version)
        state = fold(game, [e.event for e in logged_events(game, export)[:version]])
        view = view_envelope(game, state, seat, reveal=True, game_id=export.game_id, version=version)
        del view.legal_commands[:]
        return view

    async def import_game(self, export: replay_service_pb2.GameExport) -> str:
        """Store a verified export as a finished game; returns its id here (the original one when free)."""
        verdict = self.verify(export)
        if not verdict.verified:
            raise ServiceError("replay/not_verified", f"the export does not verify: {verdict.message}")
        game = self._games.registry.get(export.game, export.rules_version)
        assert game is not None  # it verified
        config = game.spec.config(export.seats, dict(export.options))
        free = export.game_id.isalnum() and await self._store.meta(export.game_id) is None
        game_id = export.game_id if free else secrets.token_hex(8)
        await self._store_export(game_id, game, config, export)
        log.info("game imported", game_id=game_id, game=export.game, events=len(export.entries))
        return game_id

    async def _store_export(
        self, game_id: str, game: AnyGame, config: GameConfig, export: replay_service_pb2.GameExport
    ) -> None:
        groups = _command_groups(export)
        meta = new_meta(game, config) | {"created_ms": str(export.created_at.ToMilliseconds())}
        for seat, name in enumerate(export.player_names):
            if name:
                meta[f"seat:{seat}"] = json.dumps(SeatClaim(name=name, token_hash="").__dict__)
        setup = groups.pop(0)
        await self._store.create(game_id, meta, [NewEvent(_raw(game, e)) for e in setup])
        version = len(setup)
        results = result_meta_of(export)
        for index, group in enumerate(groups):
            first, last = group[0], index == len(groups) - 1
            seat = first.event.seat
            await self._store.append(
                game_id,
                NewCommand(
                    [NewEvent(_raw(game, e)) for e in group],
                    expected_version=version,
                    command_id=first.event.command_id,
                    digest=command_digest(seat, first.command),
                    seat=seat,
                    command=first.command.SerializeToString(),
                    meta=results if last else None,
                    final=last,
                    recorded_at_ms=first.event.recorded_at.ToMilliseconds(),
                    timed_out=first.event.timed_out,
                    think_ms=first.event.think_time_ms,
                ),
            )
            version += len(group)


def result_meta_of(export: replay_service_pb2.GameExport) -> dict[str, str]:
    """The finished-game metadata for an export's recorded results."""
    standings = tuple(SeatResult(seat=r.seat, score=r.score, rank=r.rank) for r in export.results)
    return result_meta(Result(standings=standings))


def _boundary(export: replay_service_pb2.GameExport, version: int) -> int:
    """The command boundary at or after ``version``: the last event of the command (or setup) it is in."""
    entries = export.entries
    while version < len(entries) and not entries[version].HasField("command"):
        version += 1
    return version


def _raw(game: AnyGame, entry: replay_service_pb2.ExportEntry) -> bytes:
    return bytes(getattr(entry.event, game.spec.name).SerializeToString())


def _command_groups(export: replay_service_pb2.GameExport) -> list[list[replay_service_pb2.ExportEntry]]:
    """The setup entries, then one list per command (each starts with the entry carrying the command)."""
    groups: list[list[replay_service_pb2.ExportEntry]] = [[]]
    for entry in export.entries:
        if entry.HasField("command"):
            groups.append([])
        groups[-1].append(entry)
    return groups
