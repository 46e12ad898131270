"""The resume rule the client guide (docs/guides/clients.md) gives third-party authors: ``fromVersion`` is
where a watch starts, and a
``Last-Event-ID`` header (sent by a reconnecting EventSource with the same URL) wins over it."""

from __future__ import annotations

import random

import aiohttp

from tests.rest.harness import JsonClient, RunningServer
from tests.rest.play import create_with_seats, play_to_end
from tests.rest.test_play import _watch


async def test_last_event_id_wins_over_from_version(api: JsonClient, server: RunningServer) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    await play_to_end(api, game_id, tokens, random.Random(11))
    final = int((await api.call("GET", f"/v1/games/{game_id}"))["game"]["version"])
    url = f"{server.http_url}/v1/games/{game_id}:watch?fromVersion=2"
    async with aiohttp.ClientSession() as session:
        started, _ = await _watch(session, url, None, stop_after=2)
        resumed, ended = await _watch(session, url, str(final - 2), stop_after=None)
    assert started == [2, 3]
    assert (resumed, ended) == ([final - 1, final], True)
