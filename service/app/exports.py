"""The export file of a finished game: building it from the log, its hash chain, and reading it back
into the engine's terms for verification."""

from __future__ import annotations

import hashlib

from engines.contract import AnyGame
from engines.envelope import unwrap_command, unwrap_event, wrap_event
from engines.verify import LoggedEvent
from parlour.v1 import game_pb2, replay_service_pb2
from service.app.events import envelope_fields
from service.app.records import GameRecord
from service.app.timestamps import timestamp
from service.store.port import StoredEvent

__all__ = ["EXPORT_FORMAT", "build_export", "chain_problem", "logged_events", "seed_of"]

EXPORT_FORMAT = "parlour-export/1"


def seed_of(game: AnyGame, first: StoredEvent) -> tuple[bytes, bytes]:
    """The secret seed and its commitment's salt, as the server's own (unredacted) first event holds them."""
    started = game.event_type.FromString(first.data).game_started
    return bytes(started.seed), bytes(started.seed_salt)


def _chain_start(game: str, rules_version: str) -> bytes:
    return hashlib.sha256(b"parlour-chain-v1" + game.encode() + b"\0" + rules_version.encode()).digest()


def _entry_hash(previous: bytes, entry: replay_service_pb2.ExportEntry) -> bytes:
    unhashed = replay_service_pb2.ExportEntry()
    unhashed.CopyFrom(entry)
    unhashed.ClearField("hash")
    return hashlib.sha256(previous + unhashed.SerializeToString(deterministic=True)).digest()


def build_export(record: GameRecord, stored: list[StoredEvent]) -> replay_service_pb2.GameExport:
    """The export of a finished game from its full log, with the hash chain filled in."""
    game = record.game
    seed, salt = seed_of(game, stored[0])
    export = replay_service_pb2.GameExport(
        format=EXPORT_FORMAT,
        game_id=record.game_id,
        game=game.spec.name,
        rules_version=game.spec.rules_version,
        seats=record.config.seats,
        options=dict(record.config.options),
        seed=seed,
        seed_salt=salt,
        player_names=[record.claims[s].name if s in record.claims else "" for s in range(record.config.seats)],
        results=record.seat_results(),
        created_at=timestamp(record.created_ms),
    )
    chain = _chain_start(export.game, export.rules_version)
    for event in stored:
        inner = game.event_type.FromString(event.data)
        entry = replay_service_pb2.ExportEntry(event=wrap_event(game, inner, **envelope_fields(event)))
        if event.command:
            entry.command.CopyFrom(game_pb2.Command.FromString(event.command))
        chain = _entry_hash(chain, entry)
        entry.hash = chain
        export.entries.append(entry)
    return export


def chain_problem(export: replay_service_pb2.GameExport) -> tuple[int, str] | None:
    """The first entry whose hash does not follow from the ones before it, as (version, sentence)."""
    chain = _chain_start(export.game, export.rules_version)
    for position, entry in enumerate(export.entries, start=1):
        if entry.event.version != position:
            return position, f"entry {position} holds event {entry.event.version}: events are missing or out of order"
        chain = _entry_hash(chain, entry)
        if entry.hash != chain:
            return position, f"event {position} breaks the hash chain: it was changed after the export"
    return None


def logged_events(game: AnyGame, export: replay_service_pb2.GameExport) -> list[LoggedEvent]:
    """The export's entries as the engine's events and commands."""
    log = []
    for entry in export.entries:
        event = entry.event
        log.append(
            LoggedEvent(
                version=event.version,
                event=unwrap_event(game, event),
                seat=event.seat if event.HasField("seat") else None,
                command=unwrap_command(game, entry.command) if entry.HasField("command") else None,
                command_id=event.command_id,
            )
        )
    return log
