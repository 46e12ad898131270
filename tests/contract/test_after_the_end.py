"""The one after-the-end rule (rules README, "Hidden information after the end"), over every channel, both
transports and every registered game.

With the default policy a finished game is public: ListEvents, WatchGame and the export carry every event
whole (the seed and its salt included), and GetView (latest and at any version, for spectators and any
seat) and ViewReplay show every hidden part. With ``keep_hidden_after_end`` nothing hidden ever comes out:
every channel gives exactly what it gave while the game ran, no seed or salt anywhere, and no export. A
table of a tournament's duplicate deal is withheld until its deal is over (only its own seats read it), then
public like any finished game.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import grpc
import pytest

from engines.contract import AnyGame, fold
from engines.registry import GAMES
from service.bootstrap import App
from tests.contract.channels import TRANSPORTS, Channels, PlayedGame, inner, play_seeded
from tests.rest.harness import HttpError

GAME_PARAMS = [pytest.param(game, id=game.spec.name) for game in GAMES]


@pytest.fixture
async def channels(app: App) -> AsyncIterator[Channels]:
    async with aiohttp.ClientSession() as session:
        reader = Channels(f"127.0.0.1:{app.grpc_port}", f"http://127.0.0.1:{app.http_port}", session)
        yield reader
        await reader.close()


async def _raw_log(app: App, played: PlayedGame) -> tuple[list[Any], list[int]]:
    """The server's own events, and the command boundaries (versions after which a view exists)."""
    stored = await app.store.read(played.game_id, 1, 100_000)
    raw = [played.game.event_type.FromString(s.data) for s in stored]
    boundaries = [s.version for i, s in enumerate(stored) if i + 1 == len(stored) or stored[i + 1].command]
    return raw, boundaries


def _sample(boundaries: list[int], count: int = 12) -> list[int]:
    step = max(1, len(boundaries) // count)
    return sorted({*boundaries[::step], boundaries[0], boundaries[-1]})


def _states(game: AnyGame, raw: list[Any], versions: list[int]) -> dict[int, Any]:
    states, state, done = {}, None, 0
    for version in versions:
        state = fold(game, raw[done:version], state)
        done = version
        states[version] = state
    return states


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", GAME_PARAMS)
async def test_a_public_finished_game_shows_everything_on_every_channel(
    app: App, channels: Channels, game: AnyGame, transport: str
) -> None:
    """Default policy: events whole everywhere (seed and salt checkable by the documented formula), views at
    every version open to everyone, and ViewReplay of the export shows the same as GetView."""
    played = await play_seeded(app, game, f"public-after-the-end-{game.spec.name}".encode())
    raw, boundaries = await _raw_log(app, played)
    for seat in (None, 0):
        listed = await channels.events(transport, played.game_id, seat, None)
        watched = await channels.watch(transport, played.game_id, seat, None)
        assert [inner(game, e) for e in listed] == raw
        assert [inner(game, e) for e in watched] == raw
    export = await channels.export(transport, played.game_id)
    assert [inner(game, e.event) for e in export.entries] == raw
    started = raw[0].game_started
    salt = bytes(export.seed_salt)
    assert export.seed == played.seed and len(salt) == 16
    outside = hashlib.sha256(b"parlour-seed-v1\0" + started.rules_version.encode() + b"\0" + salt + played.seed)
    assert outside.digest() == started.seed_commitment  # the formula documented on CreateGameRequest.seed
    versions = _sample(boundaries)
    states = _states(game, raw, versions)
    for version in versions:
        for seat in (None, 1):
            full = game.view(states[version], seat, reveal=True)
            seen = await channels.view(transport, played.game_id, seat, None, at_version=version)
            assert inner(game, seen) == full, f"GetView at {version} for {seat}"
            replayed = await channels.replay_view(transport, export, version, seat)
            assert inner(game, replayed) == full, f"ViewReplay at {version} for {seat}"
    latest = await channels.view(transport, played.game_id, None, None)
    assert inner(game, latest) == game.view(states[boundaries[-1]], None, reveal=True)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", GAME_PARAMS)
async def test_a_game_that_keeps_its_secrets_reveals_nothing_after_the_end(
    app: App, channels: Channels, game: AnyGame, transport: str
) -> None:
    """keep_hidden_after_end: every channel shows what it showed while the game ran (redacted per seat), the
    seed and its salt appear nowhere, seat views still need the token, and there is no export."""
    played = await play_seeded(app, game, f"keep-hidden-after-end-{game.spec.name}".encode(), keep_hidden=True)
    raw, boundaries = await _raw_log(app, played)
    salt = bytes(raw[0].game_started.seed_salt)
    hid_something = False
    for seat, token in ((None, None), (0, played.tokens[0])):
        expected = [game.redact(e, seat) for e in raw]
        hid_something = hid_something or expected != raw
        listed = await channels.events(transport, played.game_id, seat, token)
        watched = await channels.watch(transport, played.game_id, seat, token)
        assert [inner(game, e) for e in listed] == expected
        assert [inner(game, e) for e in watched] == expected
        for event in listed:
            data = event.SerializeToString()
            assert played.seed not in data and salt not in data
    assert hid_something
    versions = _sample(boundaries)
    states = _states(game, raw, versions)
    for version in [*versions, None]:
        state = states[version or boundaries[-1]]
        for seat, token in ((None, None), (1, played.tokens[1])):
            seen = await channels.view(transport, played.game_id, seat, token, at_version=version)
            assert inner(game, seen) == game.view(state, seat), f"GetView at {version} for {seat}"
            assert played.seed not in seen.SerializeToString()
    with pytest.raises((grpc.aio.AioRpcError, HttpError)) as no_view:
        await channels.view(transport, played.game_id, played.seats - 1, None)
    assert "token" in str(no_view.value)
    with pytest.raises((grpc.aio.AioRpcError, HttpError)) as no_export:
        await channels.export(transport, played.game_id)
    assert "only this server can verify it" in str(no_export.value)


async def _play_withheld(app: App, game: AnyGame, seed: bytes) -> PlayedGame:
    """A game created ``held`` (a table of a tournament's duplicate deal), played to its end with random
    legal commands; not released."""
    seats = game.spec.min_seats
    summary = await app.games.create_game(game.spec.name, seats, {}, seed, held=True)
    tokens = [(await app.games.claim_seat(summary.game_id, s, f"p{s}"))[1] for s in range(seats)]
    rng = random.Random(seed)
    while (await app.games.record(summary.game_id)).status != "finished":
        state = await app.games.get_view(summary.game_id, None, None)
        seat = min(state.pending_seats)
        mine = await app.games.get_view(summary.game_id, seat, tokens[seat])
        command = rng.choice(list(mine.legal_commands))
        await app.games.commands.submit(
            summary.game_id, seat, tokens[seat], command, expected_version=mine.version, command_id=uuid.uuid4().hex
        )
    return PlayedGame(summary.game_id, game, seats, seed, tokens)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", GAME_PARAMS)
async def test_a_withheld_table_is_read_by_its_own_seats_only_until_it_is_released(
    app: App, channels: Channels, game: AnyGame, transport: str
) -> None:
    """A duplicate deal's table that is over while its deal is played: a spectator is refused on every
    channel (game/hidden), each seat reads what it was shown while the game ran, the summary shows neither
    length nor results, and there is no export; once released it is public like any finished game."""
    played = await _play_withheld(app, game, f"withheld-table-{game.spec.name}".encode())
    raw, boundaries = await _raw_log(app, played)
    state = fold(game, raw)
    spectator_reads = [
        channels.events(transport, played.game_id, None, None),
        channels.view(transport, played.game_id, None, None),
        channels.view(transport, played.game_id, None, None, at_version=boundaries[0]),
        channels.export(transport, played.game_id),
    ]
    for read in spectator_reads:
        with pytest.raises((grpc.aio.AioRpcError, HttpError)) as refused:
            await read
        assert "other tables are still being played" in str(refused.value)
    for seat in range(played.seats):
        events = await channels.events(transport, played.game_id, seat, played.tokens[seat])
        assert [inner(game, e) for e in events] == [game.redact(e, seat) for e in raw]
        view = await channels.view(transport, played.game_id, seat, played.tokens[seat])
        assert inner(game, view) == game.view(state, seat) and not view.results
    summary = await app.games.get_game(played.game_id)
    assert summary.withheld and summary.version == 0 and not summary.results

    await app.games.release(played.game_id)
    listed = await channels.events(transport, played.game_id, None, None)
    assert [inner(game, e) for e in listed] == raw
    view = await channels.view(transport, played.game_id, None, None)
    assert inner(game, view) == game.view(state, None, reveal=True) and view.results
    export = await channels.export(transport, played.game_id)
    assert export.seed == played.seed
    summary = await app.games.get_game(played.game_id)
    assert not summary.withheld and summary.version == len(raw) and list(summary.results) == list(view.results)
