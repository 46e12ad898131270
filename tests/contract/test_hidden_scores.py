"""Libertalia with hidden scores: nothing a spectator or another seat receives gives a score dial away
before the end (the voyage's anchor net, banked doubloons and dial are redacted per seat), over gRPC and
REST, on the events, the stream and the views."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from engines.libertalia import LIBERTALIA
from service.bootstrap import App
from tests.contract.channels import TRANSPORTS, Channels, inner, play_seeded


@pytest.fixture
async def channels(app: App) -> AsyncIterator[Channels]:
    async with aiohttp.ClientSession() as session:
        reader = Channels(f"127.0.0.1:{app.grpc_port}", f"http://127.0.0.1:{app.http_port}", session)
        yield reader
        await reader.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_scored_voyage_gives_no_other_seats_dial_away(app: App, channels: Channels, transport: str) -> None:
    played = await play_seeded(
        app, LIBERTALIA, b"hidden-scores-after-voyage-1", options={"scores": "hidden"}, until_kind="voyage_scored"
    )
    stored = await app.store.read(played.game_id, 1, 100_000)
    raw = [LIBERTALIA.event_type.FromString(s.data) for s in stored]
    scored = [e.voyage_scored for e in raw if e.WhichOneof("kind") == "voyage_scored"]
    assert scored and any(s.anchor_net for s in scored[0].scores)  # there is something to hide
    for seat, token in ((None, None), (0, played.tokens[0])):
        listed = await channels.events(transport, played.game_id, seat, token)
        watched = await channels.watch(transport, played.game_id, seat, token, until=len(stored))
        for received in (listed, watched):
            events = [inner(LIBERTALIA, e) for e in received]
            for event in (e.voyage_scored for e in events if e.WhichOneof("kind") == "voyage_scored"):
                for score in event.scores:
                    if score.seat != seat:
                        assert (score.anchor_net, score.banked, score.score) == (0, 0, 0)
        view = inner(LIBERTALIA, await channels.view(transport, played.game_id, seat, token))
        assert all(s.score == 0 for s in view.seats if s.seat != seat)
    own = [inner(LIBERTALIA, e) for e in await channels.events(transport, played.game_id, 1, played.tokens[1])]
    lines = [s for e in own if e.WhichOneof("kind") == "voyage_scored" for s in e.voyage_scored.scores]
    assert next(s for s in lines if s.seat == 1) == scored[0].scores[1]  # the owner sees its own line whole
