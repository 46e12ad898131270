"""Tournaments over REST: administration with the admin-key header, and the watch stream as resumable
Server-Sent Events."""

from __future__ import annotations

import asyncio
import json
import uuid

import aiohttp

from parlour.bots import make_bot
from parlour.runner import run_bot
from tests.rest.conftest import ADMIN_KEY
from tests.rest.harness import JsonClient, RunningServer, SseMessage, sse_messages

BOT_KEY = "rest-bot-key-0123456789"


async def _watch(session: aiohttp.ClientSession, url: str, last_event_id: str | None = None) -> list[SseMessage]:
    headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
    async with session.get(url, headers=headers) as reply:
        assert reply.status == 200 and reply.content_type == "text/event-stream"
        return [m async for m in sse_messages(reply) if m.event != "end"]


async def test_a_tournament_run_over_rest_is_watched_as_resumable_events(
    api: JsonClient, server: RunningServer
) -> None:
    """Create and start with the admin-key header; the watch stream has one SSE per event (id = version)
    ending with the finished tournament and its standings; Last-Event-ID resumes right after."""
    settings = {
        "name": "rest",
        "game": "oldmen",
        "tableSize": 3,
        "format": "TOURNAMENT_FORMAT_ROUND_ROBIN",
        "rounds": 1,
    }
    admin = {"X-Parlour-Admin-Key": ADMIN_KEY}
    names = [f"sse-{uuid.uuid4().hex[:6]}-{i}" for i in range(3)]
    async with aiohttp.ClientSession() as session:
        async with session.post(server.http_url + "/v1/tournaments", json={"settings": settings}, headers=admin) as r:
            assert r.status == 200
            tid = (await r.json())["tournament"]["tournamentId"]
        for name in names:  # names no bot has connected with yet: the admin registers them
            body = {"botName": name, "botKey": BOT_KEY}
            async with session.post(f"{server.http_url}/v1/tournaments/{tid}/bots", json=body, headers=admin) as r:
                assert r.status == 200, await r.text()
        bots = [
            asyncio.create_task(run_bot(server.grpc_target, n, BOT_KEY, lambda g: make_bot("random", g), max_games=1))
            for n in names
        ]
        async with session.post(f"{server.http_url}/v1/tournaments/{tid}:start", json={}, headers=admin) as r:
            assert r.status == 200
        await asyncio.wait_for(asyncio.gather(*bots), timeout=60)
        url = f"{server.http_url}/v1/tournaments/{tid}:watch"
        messages = await asyncio.wait_for(_watch(session, url), timeout=30)
        resumed = await asyncio.wait_for(_watch(session, url, last_event_id="3"), timeout=30)
    assert [m.id for m in messages] == [str(v) for v in range(1, len(messages) + 1)]
    last = json.loads(messages[-1].data)
    assert "finished" in last["event"]
    assert last["tournament"]["status"] == "TOURNAMENT_STATUS_FINISHED"
    assert sorted(s["botName"] for s in last["standings"]) == sorted(names)
    assert [m.id for m in resumed] == [m.id for m in messages[3:]]
    standings = await api.call("GET", f"/v1/tournaments/{tid}/standings")
    assert standings["standings"] == last["standings"]


async def test_a_tournament_plays_every_game_under_the_one_rules_version_it_states(
    api: JsonClient, server: RunningServer
) -> None:
    """A tournament created without a rules version states the current one; one that names an older
    version plays every game under it (its standings never mix rules)."""
    admin = {"X-Parlour-Admin-Key": ADMIN_KEY}
    base = {"game": "libertalia", "tableSize": 2, "format": "TOURNAMENT_FORMAT_ROUND_ROBIN", "rounds": 1}
    names = [f"rv-{uuid.uuid4().hex[:6]}-{i}" for i in range(2)]
    async with aiohttp.ClientSession() as session:
        async with session.post(
            server.http_url + "/v1/tournaments", json={"settings": {**base, "name": "now"}}, headers=admin
        ) as r:
            assert (await r.json())["tournament"]["settings"]["rulesVersion"] == "libertalia/2"
        settings = {**base, "name": "older", "rulesVersion": "libertalia/1"}
        async with session.post(server.http_url + "/v1/tournaments", json={"settings": settings}, headers=admin) as r:
            tournament = (await r.json())["tournament"]
            assert tournament["settings"]["rulesVersion"] == "libertalia/1"
            tid = tournament["tournamentId"]
        for name in names:
            body = {"botName": name, "botKey": BOT_KEY}
            async with session.post(f"{server.http_url}/v1/tournaments/{tid}/bots", json=body, headers=admin) as r:
                assert r.status == 200, await r.text()
        bots = [
            asyncio.create_task(run_bot(server.grpc_target, n, BOT_KEY, lambda g: make_bot("random", g), max_games=1))
            for n in names
        ]
        async with session.post(f"{server.http_url}/v1/tournaments/{tid}:start", json={}, headers=admin) as r:
            assert r.status == 200
        await asyncio.wait_for(asyncio.gather(*bots), timeout=90)
        messages = await asyncio.wait_for(_watch(session, f"{server.http_url}/v1/tournaments/{tid}:watch"), 30)
    games = [json.loads(m.data)["event"]["tableScheduled"]["gameId"] for m in messages if "tableScheduled" in m.data]
    assert games
    for game_id in games:
        assert (await api.call("GET", f"/v1/games/{game_id}"))["game"]["rulesVersion"] == "libertalia/1"
