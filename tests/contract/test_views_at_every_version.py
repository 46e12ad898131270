"""Replay views are positions of the game: GetView at every version of seeded games of every type, over gRPC
and REST, is the view at a command boundary (a version inside one command's events gives the view after
all of them, and says which), and that state is consistent: a known phase, and exactly the pending seats
have legal commands."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from engines.contract import AnyGame, fold
from engines.registry import GAMES
from service.bootstrap import App
from tests.contract.channels import TRANSPORTS, Channels, inner, play_seeded

GAME_PARAMS = [pytest.param(game, id=game.spec.name) for game in GAMES]


@pytest.fixture
async def channels(app: App) -> AsyncIterator[Channels]:
    async with aiohttp.ClientSession() as session:
        reader = Channels(f"127.0.0.1:{app.grpc_port}", f"http://127.0.0.1:{app.http_port}", session)
        yield reader
        await reader.close()


def _consistent(game: AnyGame, state: Any, view: Any) -> None:
    """A known phase, and legal commands for exactly the pending seats (none once over)."""
    board = inner(game, view)
    assert board.phase != 0, f"phase UNSPECIFIED at version {view.version}"
    pending = set(view.pending_seats)
    assert pending == set(game.pending(state))
    for seat in range(len(board.seats)):
        has_moves = bool(game.legal_commands(state, seat))
        assert has_moves == (seat in pending), f"seat {seat} at version {view.version}"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", GAME_PARAMS)
async def test_every_version_gives_the_view_of_a_command_boundary(
    app: App, channels: Channels, game: AnyGame, transport: str
) -> None:
    played = await play_seeded(app, game, f"every-version-{game.spec.name}-sweep".encode(), keep_hidden=True)
    stored = await app.store.read(played.game_id, 1, 100_000)
    raw = [game.event_type.FromString(s.data) for s in stored]
    boundaries = [s.version for i, s in enumerate(stored) if i + 1 == len(stored) or stored[i + 1].command]
    assert len(boundaries) < len(stored)  # some commands make several events, so the sweep crosses them
    states: dict[int, Any] = {}
    state, done = None, 0
    for boundary in boundaries:
        state = fold(game, raw[done:boundary], state)
        done, states[boundary] = boundary, state
    for version in range(1, len(stored) + 1):
        boundary = next(b for b in boundaries if b >= version)
        view = await channels.view(transport, played.game_id, 0, played.tokens[0], at_version=version)
        assert view.version == boundary
        assert inner(game, view) == game.view(states[boundary], 0)
        _consistent(game, states[boundary], view)
