"""Seeds no one can guess: a client-chosen seed has at least 16 bytes, and the public commitment is salted by
the server, so even a weak seed cannot be found from it (over gRPC and REST, for every game)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator

import aiohttp
import grpc
import pytest

from engines.contract import AnyGame
from engines.registry import GAMES
from parlour.client import GameClient, ParlourError
from service.bootstrap import App
from tests.contract.channels import TRANSPORTS, Channels, inner, play_seeded
from tests.rest.harness import HttpError, JsonClient

GAME_PARAMS = [pytest.param(game, id=game.spec.name) for game in GAMES]


@pytest.fixture
async def api(app: App) -> AsyncIterator[JsonClient]:
    async with aiohttp.ClientSession() as session:
        yield JsonClient(session, f"http://127.0.0.1:{app.http_port}")


@pytest.mark.parametrize("length", [1, 8, 15])
async def test_a_short_seed_is_refused_over_grpc(target: str, length: int) -> None:
    """A seed under 16 bytes could be brute-forced from its commitment: INVALID_ARGUMENT, with what to do."""
    async with GameClient(target) as client:
        with pytest.raises(ParlourError) as refused:
            await client.create_game("oldmen", 3, seed=b"s" * length)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert f"16 to 256 bytes long, not {length}" in refused.value.message
    assert "leave it unset" in refused.value.message


async def test_a_short_seed_is_refused_over_rest(api: JsonClient) -> None:
    """The same over REST: 400 request/invalid with the sentence."""
    body = {"game": "verraeter", "seats": 3, "seed": base64.b64encode(b"abc").decode()}
    with pytest.raises(HttpError) as refused:
        await api.call("POST", "/v1/games", body)
    assert refused.value.status == 400
    assert "16 to 256 bytes long, not 3" in str(refused.value.body)
    created = await api.call("POST", "/v1/games", {**body, "seed": base64.b64encode(b"s" * 16).decode()})
    assert created["game"]["gameId"]


@pytest.mark.parametrize("game", GAME_PARAMS)
async def test_the_commitment_hides_a_weak_seed(app: App, game: AnyGame) -> None:
    """The same seed twice gives the same deal but two unrelated commitments (a fresh server salt each time),
    and neither is the unsalted hash an outsider would try seeds against."""
    seed = b"0" * 16
    commitments = []
    for _ in range(2):
        summary = await app.games.create_game(game.spec.name, game.spec.min_seats, {}, seed)
        first = (await app.store.read(summary.game_id, 1, 1))[0]
        started = game.event_type.FromString(first.data).game_started
        assert len(started.seed_salt) == 16
        commitments.append(bytes(started.seed_commitment))
        unsalted = hashlib.sha256(b"parlour-seed-v1\0" + started.rules_version.encode() + b"\0" + seed).digest()
        assert started.seed_commitment != unsalted
    assert commitments[0] != commitments[1]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", GAME_PARAMS)
async def test_the_final_event_reveals_seed_and_salt_for_an_outside_check(
    app: App, game: AnyGame, transport: str
) -> None:
    """Once the game is over its last event carries the seed and the salt; the documented formula, computed
    outside the server, gives the commitment of the first event. Before the end neither is sent."""
    seed = f"outside-check-{game.spec.name}".encode()
    played = await play_seeded(app, game, seed)
    async with aiohttp.ClientSession() as session:
        reader = Channels(f"127.0.0.1:{app.grpc_port}", f"http://127.0.0.1:{app.http_port}", session)
        events = [inner(game, e) for e in await reader.events(transport, played.game_id, None, None)]
        await reader.close()
    started, final = events[0].game_started, getattr(events[-1], events[-1].WhichOneof("kind"))
    assert final.seed == seed and len(final.seed_salt) == 16
    material = b"parlour-seed-v1\0" + started.rules_version.encode() + b"\0" + final.seed_salt + final.seed
    assert hashlib.sha256(material).digest() == started.seed_commitment
    assert game.redact(events[0], None).game_started.seed_salt == b""
