"""Libertalia with hidden scores: nothing a spectator or another seat receives gives a score dial away
before the end (the voyage's anchor net, banked doubloons and dial are redacted per seat), over gRPC and
REST, on the events, the stream and the views; at the end the final scores are public on every channel,
even when the game keeps its hidden information after the end."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from engines.libertalia import LIBERTALIA
from service.bootstrap import App
from tests.contract.channels import TRANSPORTS, Channels, PlayedGame, inner, play_seeded


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


# --- at the end (rules D4: the dials are revealed after voyage 3) -----------------------------------------
#
# The final scores are public at the end under every policy: a result without its scores means nothing,
# and the seed's rule (D4) hides the dials only until the game ends. keep_hidden_after_end keeps hidden
# what was hidden while the game ran (the dials after voyages 1 and 2, each voyage's anchor net and banked
# doubloons of other seats), not the final dials. The service shows them (GetGame and GetView results,
# the game_finished event), and so do the views once the game is over and the last voyage's score event.


async def _kept_hidden_to_the_end(app: App, name: str) -> tuple[PlayedGame, dict[int, int]]:
    """A Libertalia game with hidden scores and keep_hidden_after_end, played to its end, and the final
    score of each seat (the server's own, unredacted game_finished event)."""
    played = await play_seeded(app, LIBERTALIA, name.encode(), options={"scores": "hidden"}, keep_hidden=True)
    stored = await app.store.read(played.game_id, 1, 100_000)
    finished = LIBERTALIA.event_type.FromString(stored[-1].data).game_finished
    return played, {s.seat: s.score for s in finished.scores}


def _readers(played: PlayedGame) -> list[tuple[int | None, str | None]]:
    return [(None, None), (0, played.tokens[0]), (1, played.tokens[1])]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_final_scores_are_public_at_the_end_even_when_hidden_information_stays_hidden(
    app: App, channels: Channels, transport: str
) -> None:
    played, final = await _kept_hidden_to_the_end(app, "final-scores-public")
    assert len(set(final.values())) > 1 or any(final.values())  # something a reader could get wrong
    summary = (await app.games.get_game(played.game_id)).results
    assert {r.seat: r.score for r in summary} == final
    for seat, token in _readers(played):
        view = await channels.view(transport, played.game_id, seat, token)
        assert {r.seat: r.score for r in view.results} == final
        events = [inner(LIBERTALIA, e) for e in await channels.events(transport, played.game_id, seat, token)]
        assert {s.seat: s.score for s in events[-1].game_finished.scores} == final


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_views_show_the_final_dials_once_the_game_is_over(
    app: App, channels: Channels, transport: str
) -> None:
    played, final = await _kept_hidden_to_the_end(app, "final-dials-in-views")
    for seat, token in _readers(played):
        view = inner(LIBERTALIA, await channels.view(transport, played.game_id, seat, token))
        assert {s.seat: s.score for s in view.seats} == final, f"the view of {seat}"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_last_voyage_s_score_event_shows_the_final_dials_and_nothing_earlier(
    app: App, channels: Channels, transport: str
) -> None:
    played, final = await _kept_hidden_to_the_end(app, "final-dials-in-events")
    for seat, token in _readers(played):
        listed = await channels.events(transport, played.game_id, seat, token)
        watched = await channels.watch(transport, played.game_id, seat, token)
        for received in (listed, watched):
            scored = [inner(LIBERTALIA, e).voyage_scored for e in received]
            scored = [v for v in scored if v.voyage]
            assert [v.voyage for v in scored] == [1, 2, 3]
            others = [s for v in scored for s in v.scores if s.seat != seat]
            assert all((s.anchor_net, s.banked) == (0, 0) for s in others)  # never told, even at the end
            assert all(s.score == 0 for v in scored[:2] for s in v.scores if s.seat != seat)
            assert {s.seat: s.score for s in scored[2].scores} == final, f"voyage 3 as {seat} reads it"
