"""The one after-the-end rule (rules README, "Hidden information after the end"), over every channel, both
transports and every registered game.

With the default policy a finished game is public: ListEvents, WatchGame and the export carry every event
whole (the seed and its salt included), and GetView (latest and at any version, for spectators and any
seat) and ViewReplay show every hidden part. With ``keep_hidden_after_end`` nothing hidden ever comes out:
every channel gives exactly what it gave while the game ran, no seed or salt anywhere, and no export.
"""

from __future__ import annotations

import hashlib
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
