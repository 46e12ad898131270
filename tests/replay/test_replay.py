"""Exact, verifiable replays: export, import into another server, verify, detect tampering, view any
version, and the policy for hidden information after the end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engines.registry import get_game
from parlour.client import GameClient, ParlourError
from parlour.v1 import game_pb2, replay_service_pb2
from service.app.errors import ServiceError
from service.app.time_control import TimeControl
from service.bootstrap import App, build_app
from service.config import Settings
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import finish, seated_game

Export = replay_service_pb2.GameExport


@pytest.fixture
async def other_server(tmp_path: Path) -> AsyncIterator[App]:
    """A second server with its own embedded Redis."""
    settings = Settings(grpc_host="127.0.0.1", grpc_port=0, http_port=0, data_dir=tmp_path / "b", log_level="warning")
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)


@pytest.fixture
async def exported(app: App, target: str) -> Export:
    """The export of a finished four-player game of Old Men of the Forest."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"export")
        await finish(client, game)
    return await app.replays.export(game.game_id)


def _copy(export: Export) -> Export:
    copy = Export()
    copy.CopyFrom(export)
    return copy


def _rechain(export: Export) -> Export:
    """Recompute the hash chain, as a forger who edits the file with care would."""
    from service.app.exports import _chain_start, _entry_hash

    chain = _chain_start(export.game, export.rules_version)
    for entry in export.entries:
        chain = _entry_hash(chain, entry)
        entry.hash = chain
    return export


async def test_export_import_verify_round_trip(app: App, other_server: App, exported: Export) -> None:
    """A finished game exported from one server, imported into another with its own Redis, verifies there and
    exports identically."""
    verdict = app.replays.verify(exported)
    assert verdict.verified, verdict.message
    game_id = await other_server.replays.import_game(exported)
    assert game_id == exported.game_id
    again = await other_server.replays.export(game_id)
    assert again == exported
    assert other_server.replays.verify(again).verified
    async with GameClient(f"127.0.0.1:{other_server.grpc_port}") as client:
        summary = await client.game(game_id)
    assert summary.status == game_pb2.GAME_STATUS_FINISHED
    assert [(r.seat, r.score, r.rank) for r in summary.results] == [(r.seat, r.score, r.rank) for r in exported.results]


async def test_changing_a_card_in_an_event_is_caught(app: App, exported: Export) -> None:
    """An edited card breaks the hash chain at that event; re-chained, re-running the rules finds it."""
    forged = _copy(exported)
    played = next(e for e in forged.entries if e.event.oldmen.HasField("card_played"))
    played.event.oldmen.card_played.card.value = played.event.oldmen.card_played.card.value % 10 + 1
    version = played.event.version
    verdict = app.replays.verify(forged)
    assert (verdict.verified, verdict.first_bad_version) == (False, version)
    assert "hash chain" in verdict.message
    verdict = app.replays.verify(_rechain(forged))
    assert (verdict.verified, verdict.first_bad_version) == (False, version)
    assert f"event {version}" in verdict.message


async def test_changing_a_command_is_caught(app: App, exported: Export) -> None:
    """A command swapped for another legal-looking one makes its events differ from the log."""
    forged = _copy(exported)
    take = next(e for e in forged.entries if e.command.oldmen.HasField("take_card"))
    take.command.oldmen.take_card.from_seat = (take.command.oldmen.take_card.from_seat + 1) % 4
    verdict = app.replays.verify(_rechain(forged))
    assert (verdict.verified, verdict.first_bad_version) == (False, take.event.version)


async def test_changing_the_seed_is_caught(app: App, exported: Export) -> None:
    """Another seed does not match the commitment published in the first event."""
    forged = _copy(exported)
    forged.seed = b"another seed"
    verdict = app.replays.verify(forged)
    assert (verdict.verified, verdict.first_bad_version) == (False, 1)
    assert "commitment" in verdict.message


async def test_swapping_two_events_is_caught(app: App, exported: Export) -> None:
    """Two events in the wrong order are named at the first position out of place."""
    forged = _copy(exported)
    a, b = forged.entries[20], forged.entries[21]
    first, second = _copy_entry(a), _copy_entry(b)
    forged.entries[20].CopyFrom(second)
    forged.entries[21].CopyFrom(first)
    verdict = app.replays.verify(forged)
    assert (verdict.verified, verdict.first_bad_version) == (False, 21)
    for entry, version in zip(forged.entries, range(1, len(forged.entries) + 1), strict=True):
        entry.event.version = version
    verdict = app.replays.verify(_rechain(forged))
    assert (verdict.verified, verdict.first_bad_version) == (False, 21)


def _copy_entry(entry: replay_service_pb2.ExportEntry) -> replay_service_pb2.ExportEntry:
    copy = replay_service_pb2.ExportEntry()
    copy.CopyFrom(entry)
    return copy


async def test_a_tampered_export_is_not_imported(other_server: App, exported: Export) -> None:
    """Import refuses an export that does not verify, with the verifier's sentence."""
    forged = _copy(exported)
    forged.seed = b"x"
    with pytest.raises(ServiceError) as refused:
        await other_server.replays.import_game(forged)
    assert refused.value.reason == "replay/not_verified" and "commitment" in refused.value.message


async def test_rules_the_server_does_not_hold_are_reported_as_not_verifiable_here(app: App, exported: Export) -> None:
    """An export made with rules this server does not have is reported clearly, not as a forgery: it names
    the export's version and those the server holds."""
    other = _copy(exported)
    other.rules_version = "oldmen/7"
    verdict = app.replays.verify(other)
    assert not verdict.verified and "not verifiable here" in verdict.message and "'oldmen/7'" in verdict.message
    assert "these hold oldmen/1" in verdict.message
    assert verdict.rules_version == "" and verdict.first_bad_version == 0


async def test_state_at_any_version(app: App, target: str) -> None:
    """The view after event N equals the engine's fold of the first N events, for spectators and seats."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"at-version")
        await finish(client, game)
        engine = get_game("oldmen")
        assert engine is not None
        stored = await app.store.read(game.game_id, 1, 10_000)
        boundaries = [s.version for i, s in enumerate(stored) if i + 1 == len(stored) or stored[i + 1].command]
        for version in (1, 8, 9, 50, len(stored) - 1):
            boundary = next(b for b in boundaries if b >= version)  # views exist at command boundaries
            state = None
            for event in stored[:boundary]:
                state = engine.evolve(state, engine.event_type.FromString(event.data))
            for seat in (None, 2):
                view = await client.view_at(game.game_id, version, seat)
                assert view.version == boundary and not view.legal_commands
                assert view.oldmen == engine.view(state, seat, reveal=True)  # the game is over and public


async def test_state_at_a_version_needs_the_seat_token_while_the_game_runs(target: str) -> None:
    """A seat's past view of a running game is as private as its current one."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"private-past")
        with pytest.raises(ParlourError) as refused:
            await client.view_at(game.game_id, 5, 1)
        assert refused.value.reason == "auth/missing_token"
        view = await client.view_at(game.game_id, 5, 1, token=game.tokens[1])
        assert len(view.oldmen.seats[1].hand) == 10 and not view.oldmen.seats[0].hand
        with pytest.raises(ParlourError) as beyond:
            await client.view_at(game.game_id, 10_000, None)
        assert beyond.value.reason == "version/not_found"


async def test_by_default_everything_is_revealed_after_the_end(app: App, target: str) -> None:
    """After the end, spectators read every hand in the log, and every seat's view is open."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"reveal")
        await finish(client, game)
        events = [e async for e in client.events(game.game_id)]
        dealt = [e.oldmen.hand_dealt for e in events if e.oldmen.HasField("hand_dealt")]
        assert all(len(d.cards) == 10 for d in dealt)
        started = next(e.oldmen.game_started for e in events if e.oldmen.HasField("game_started"))
        assert started.seed
        assert (await client.view(game.game_id, 3)).seat == 3


async def test_a_game_can_keep_its_hidden_information_after_the_end(app: App, target: str) -> None:
    """With keep_hidden_after_end, the finished log stays redacted, seat views need tokens, and there is
    no export."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"hidden", keep_hidden=True)
        await finish(client, game)
        events = [e async for e in client.events(game.game_id)]
        dealt = [e.oldmen.hand_dealt for e in events if e.oldmen.HasField("hand_dealt")]
        assert all(not d.cards for d in dealt)
        with pytest.raises(ParlourError) as refused:
            await client.view(game.game_id, 3)
        assert refused.value.reason == "auth/missing_token"
    with pytest.raises(ServiceError) as no_export:
        await app.replays.export(game.game_id)
    assert no_export.value.reason == "game/hidden"


async def test_a_running_game_cannot_be_exported(app: App, target: str) -> None:
    """Export is for finished games only."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"running")
    with pytest.raises(ServiceError) as refused:
        await app.replays.export(game.game_id)
    assert refused.value.reason == "game/not_over"


async def test_view_of_an_export_at_a_version(app: App, exported: Export) -> None:
    """An export alone gives the board at any version, from any seat's perspective, with every hand (an
    export is of a game whose policy makes everything public after the end)."""
    view = app.replays.view(exported, 8, 2)  # the setup of four seats is eight events
    assert view.version == 8 and all(len(s.hand) == 10 for s in view.oldmen.seats)
    last = app.replays.view(exported, 0, None)
    assert last.status == game_pb2.GAME_STATUS_FINISHED


async def _all_events(app: App, game_id: str) -> list[game_pb2.Event]:
    events: list[game_pb2.Event] = []
    while True:
        page = await app.games.list_events(game_id, len(events) + 1, 1000, None, None)
        events += page.events
        if page.next_version > page.last_version:
            return events


async def test_a_clocked_game_keeps_every_field_of_its_events_through_export_and_import(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path, other_server: App
) -> None:
    """Live events, exported events and the imported game's events agree field by field, clock facts
    included: which moves the server played for a seat out of time (timed_out) and the time each took."""
    clocked = build_app(server_settings(redis_target, key_prefix, tmp_path / "a", clock_poll_seconds=0.01))
    await clocked.start()
    try:
        assert clocked.clocks is not None
        summary = await clocked.games.create_game("oldmen", 3, {}, b"clocked-export-seed")
        tokens = [(await clocked.games.claim_seat(summary.game_id, s, f"p{s}"))[1] for s in range(3)]
        view = await clocked.games.get_view(summary.game_id, None, None)
        seat = view.pending_seats[0]
        mine = await clocked.games.get_view(summary.game_id, seat, tokens[seat])
        await clocked.games.commands.submit(
            summary.game_id, seat, tokens[seat], mine.legal_commands[0], expected_version=None, command_id="own"
        )
        await clocked.clocks.start(summary.game_id, TimeControl(move_ms=50, max_timeouts=1), 3)
        async for _ in clocked.games.watch(summary.game_id, 1, None, None):
            pass  # the stream ends after the game's last event: every other move is played by the server
        live = await _all_events(clocked, summary.game_id)
        exported = await clocked.replays.export(summary.game_id)
    finally:
        await clocked.stop(grace=0)
        await delete_prefix(redis_target.url, key_prefix)
    moves = [e for e in live if e.HasField("seat") and e.command_id]
    assert any(not e.timed_out and e.command_id == "own" for e in moves)
    assert sum(e.timed_out for e in moves) > 10 and any(e.think_time_ms >= 40 for e in moves if e.timed_out)
    game = get_game("oldmen")
    assert game is not None
    assert len(exported.entries) == len(live)
    for event, entry in zip(live, exported.entries, strict=True):
        seen = game_pb2.Event()
        seen.CopyFrom(entry.event)
        seen.oldmen.CopyFrom(game.redact(entry.event.oldmen, None, finished=True))
        assert seen == event, (event.version, seen, event)
    assert other_server.replays.verify(exported).verified
    imported = await other_server.replays.import_game(exported)
    assert await _all_events(other_server, imported) == live
    assert await other_server.replays.export(imported) == exported
