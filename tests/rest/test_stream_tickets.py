"""Stream tickets: a seat's event stream opened without its token in the URL (as a browser's EventSource
must), with a short-lived, single-use ticket from an authenticated call."""

from __future__ import annotations

import json
import random
from typing import Any

import aiohttp
import pytest

from service.store.keys import Keys
from service.store.tickets import RedisTickets
from tests.rest.harness import HttpError, JsonClient, RunningServer, sse_messages
from tests.rest.play import create_with_seats, play_to_end


async def _ticket(api: JsonClient, game_id: str, seat: int, token: str | None) -> dict[str, Any]:
    return await api.call("POST", f"/v1/games/{game_id}/streamTickets", {"seat": seat}, token=token)


async def _stream(server: RunningServer, game_id: str, query: str) -> tuple[int, list[dict[str, Any]] | dict[str, Any]]:
    """Open the game's stream with ``query``; (status, events to the end) or (status, error body)."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.http_url}/v1/games/{game_id}:watch?{query}") as reply,
    ):
        if reply.status != 200:
            return reply.status, await reply.json(content_type=None)
        events = []
        async for message in sse_messages(reply):
            if message.event == "end":
                break
            events.append(json.loads(message.data)["event"])
        return reply.status, events


async def test_a_ticket_opens_the_seats_own_stream_once(api: JsonClient, server: RunningServer) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    await play_to_end(api, game_id, tokens, random.Random(2))
    issued = await _ticket(api, game_id, 1, tokens[1])
    assert issued["expiresAt"]
    status, events = await _stream(server, game_id, f"fromVersion=1&seat=1&streamTicket={issued['streamTicket']}")
    assert status == 200
    assert (
        events
        == (await api.call("GET", f"/v1/games/{game_id}/events", token=tokens[1], seat=1, pageSize=1000))["events"]
    )
    status, refused = await _stream(server, game_id, f"seat=1&streamTicket={issued['streamTicket']}")
    assert (status, refused["reason"]) == (401, "auth/bad_ticket")  # type: ignore[call-overload]  # the refusal's body is decoded JSON


async def test_a_running_games_ticket_stream_shows_the_seats_hand_and_not_the_others(
    api: JsonClient, server: RunningServer
) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    issued = await _ticket(api, game_id, 0, tokens[0])
    query = f"fromVersion=1&seat=0&streamTicket={issued['streamTicket']}"
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.http_url}/v1/games/{game_id}:watch?{query}") as reply,
    ):
        assert reply.status == 200
        first = [json.loads(m.data)["event"] async for m in _take(sse_messages(reply), 3)]
    mine = (await api.call("GET", f"/v1/games/{game_id}/events", token=tokens[0], seat=0, pageSize=3))["events"]
    public = (await api.call("GET", f"/v1/games/{game_id}/events", pageSize=3))["events"]
    assert first == mine
    assert mine != public  # the seat's deal shows its own cards, the spectator's does not


async def _take(messages: Any, count: int) -> Any:
    async for message in messages:
        yield message
        count -= 1
        if not count:
            return


@pytest.mark.parametrize(
    ("ticket_seat", "query_seat"),
    [(0, "seat=1&"), (0, "")],
    ids=["another seat", "no seat"],
)
async def test_a_ticket_opens_no_other_stream(
    api: JsonClient, server: RunningServer, ticket_seat: int, query_seat: str
) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    issued = await _ticket(api, game_id, ticket_seat, tokens[ticket_seat])
    status, refused = await _stream(server, game_id, f"{query_seat}streamTicket={issued['streamTicket']}")
    assert (status, refused["reason"]) == (401, "auth/bad_ticket")  # type: ignore[call-overload]  # the refusal's body is decoded JSON
    other_id, _ = await create_with_seats(api, "oldmen", 3)
    status, refused = await _stream(server, other_id, f"seat=0&streamTicket={issued['streamTicket']}")
    assert (status, refused["reason"]) == (401, "auth/bad_ticket")  # type: ignore[call-overload]  # the refusal's body is decoded JSON


async def test_a_ticket_needs_the_seats_own_token(api: JsonClient) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    for token, reason in [(None, "auth/missing_token"), ("x" * 40, "auth/bad_token"), (tokens[2], "auth/wrong_seat")]:
        with pytest.raises(HttpError) as refused:
            await _ticket(api, game_id, 1, token)
        assert refused.value.body["reason"] == reason
        assert refused.value.body["message"]


async def test_a_ticket_is_stored_by_its_hash_and_expires_by_itself(redis_client: Any, key_prefix: str) -> None:
    keys = Keys(key_prefix)
    tickets = RedisTickets(redis_client, keys)
    await tickets.put("g1", "hash-1", 2, ttl_ms=30_000)
    assert 0 < await redis_client.pttl(keys.ticket("g1", "hash-1")) <= 30_000
    assert await tickets.take("g1", "hash-1") == 2
    assert await tickets.take("g1", "hash-1") is None
