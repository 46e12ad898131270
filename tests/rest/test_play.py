"""A whole game over REST/JSON only, watched by Server-Sent Events across a dropped connection."""

from __future__ import annotations

import asyncio
import json
import random

import aiohttp
import pytest

from engines.registry import GAMES as REGISTERED
from tests.rest.harness import JsonClient, RunningServer, sse_messages
from tests.rest.play import create_with_seats, play_to_end

#: Every registered game at its smallest table.
GAMES = [(game.spec.name, game.spec.min_seats) for game in REGISTERED]


@pytest.mark.parametrize(("game", "seats"), GAMES)
async def test_a_whole_game_is_played_by_http_alone(api: JsonClient, game: str, seats: int) -> None:
    game_id, tokens = await create_with_seats(api, game, seats)
    commands = await play_to_end(api, game_id, tokens, random.Random(7))
    summary = (await api.call("GET", f"/v1/games/{game_id}"))["game"]
    assert commands > 0
    assert summary["status"] == "GAME_STATUS_FINISHED"
    assert sorted(r["seat"] for r in summary["results"]) == list(range(seats))
    listed = await api.call("GET", "/v1/games", game=game, status="GAME_STATUS_FINISHED")
    assert game_id in [g["gameId"] for g in listed["games"]]


async def _watch(
    session: aiohttp.ClientSession, url: str, last_event_id: str | None, stop_after: int | None
) -> tuple[list[int], bool]:
    """Versions received, and whether the stream said it ended; drops the connection after ``stop_after``."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
    versions: list[int] = []
    async with session.get(url, headers=headers) as reply:
        assert reply.status == 200
        assert reply.content_type == "text/event-stream"
        async for message in sse_messages(reply):
            if message.event == "end":
                return versions, True
            assert message.event == "message"
            event = json.loads(message.data)["event"]
            assert message.id == event["version"]
            versions.append(int(event["version"]))
            if stop_after is not None and len(versions) >= stop_after:
                return versions, False  # leaving the block drops the connection
    return versions, False


async def _moved_past(api: JsonClient, game_id: str, version: int) -> None:
    """Return once the game's log is at ``version`` or further, or the game is over."""
    for _ in range(1200):
        game = (await api.call("GET", f"/v1/games/{game_id}"))["game"]
        if int(game["version"]) >= version or game["status"] == "GAME_STATUS_FINISHED":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the game did not reach version {version}")


async def test_a_watcher_resumes_after_a_dropped_connection_with_no_gap_and_no_duplicate(
    api: JsonClient, server: RunningServer
) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    url = f"{server.http_url}/v1/games/{game_id}:watch"
    async with aiohttp.ClientSession() as session:
        first, ended = await _watch(session, url + "?fromVersion=1", None, stop_after=3)
        assert (first, ended) == ([1, 2, 3], False)
        player = asyncio.create_task(play_to_end(api, game_id, tokens, random.Random(3)))
        await _moved_past(api, game_id, first[-1] + 5)  # the game goes on while nobody watches
        second, _ = await _watch(session, url, str(first[-1]), stop_after=20)
        rest, ended = await _watch(session, url, str(second[-1]), stop_after=None)
        await player
    final = int((await api.call("GET", f"/v1/games/{game_id}"))["game"]["version"])
    assert ended
    assert first + second + rest == list(range(1, final + 1))


async def test_watching_a_finished_game_past_its_end_ends_at_once(api: JsonClient, server: RunningServer) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    await play_to_end(api, game_id, tokens, random.Random(5))
    final = int((await api.call("GET", f"/v1/games/{game_id}"))["game"]["version"])
    async with aiohttp.ClientSession() as session:
        url = f"{server.http_url}/v1/games/{game_id}:watch"
        versions, ended = await _watch(session, url, str(final), stop_after=None)
        everything, ended_too = await _watch(session, url + f"?fromVersion={final - 1}", None, stop_after=None)
    assert (versions, ended) == ([], True)
    assert (everything, ended_too) == ([final - 1, final], True)
