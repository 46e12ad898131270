"""Seats the server plays itself (house bots, chosen at CreateGame), over REST."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from typing import Any

import aiohttp
import pytest

from engines.registry import game_names, get_game
from parlour.bots import STRATEGIES
from service.app.games import Games
from tests.rest.harness import HttpError, JsonClient, RunningServer, sse_messages

GAMES = game_names()


def _strategies(game: str) -> list[str]:
    """The reference bots' strategies that play ``game``, sorted (the random bot plays every game)."""
    return sorted(name for name, by_game in STRATEGIES.items() if game in by_game or "*" in by_game)


async def _events_to_end(server: RunningServer, game_id: str) -> list[dict[str, Any]]:
    """Every event of the game, read from its public stream until the stream's end (the game's end)."""
    events = []
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.http_url}/v1/games/{game_id}:watch?fromVersion=1") as reply,
    ):
        async for message in sse_messages(reply):
            if message.event == "end":
                return events
            events.append(json.loads(message.data)["event"])
    raise AssertionError("the stream closed before the game ended")


@pytest.mark.parametrize("game", GAMES)
async def test_a_table_of_house_bots_plays_itself_to_the_end(api: JsonClient, server: RunningServer, game: str) -> None:
    """Three seats where the game allows (each of the game's strategies in turn: greedy, random, greedy)
    play a game to its end."""
    engine = get_game(game)
    assert engine is not None
    spec = engine.spec
    strategies = _strategies(game)
    seats = [strategies[seat % len(strategies)] for seat in range(min(max(3, spec.min_seats), spec.max_seats))]
    bots = [{"seat": seat, "strategy": strategy} for seat, strategy in enumerate(seats)]
    body = {"game": game, "seats": len(seats), "houseBots": bots}
    created = (await api.call("POST", "/v1/games", body))["game"]
    assert [(s["claimed"], s["playerName"], s["houseBot"]) for s in created["seats"]] == [
        (True, f"{strategy} bot", strategy) for strategy in seats
    ]
    events = await _events_to_end(server, created["gameId"])
    summary = (await api.call("GET", f"/v1/games/{created['gameId']}"))["game"]
    assert summary["status"] == "GAME_STATUS_FINISHED"
    assert sorted(r["seat"] for r in summary["results"]) == list(range(len(seats)))
    assert {e["commandId"].split(":")[0] for e in events if e["commandId"]} == {"house"}


async def test_a_person_plays_against_house_bots_with_their_own_token_only(api: JsonClient) -> None:
    bots = [{"seat": 1, "strategy": "greedy"}, {"seat": 2, "strategy": "random"}]
    game_id = (await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3, "houseBots": bots}))["game"]["gameId"]
    claimed = await api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": "Anna"})
    assert claimed["seat"] == 0
    token, rng, moves = claimed["seatToken"], random.Random(1), 0
    while True:
        view = (await api.call("GET", f"/v1/games/{game_id}/view", token=token, seat=0))["view"]
        if view["status"] == "GAME_STATUS_FINISHED":
            break
        if not view["legalCommands"]:
            continue  # the bots are moving; the next view shows their moves
        body = {"seat": 0, "command": rng.choice(view["legalCommands"]), "commandId": uuid.uuid4().hex}
        body["expectedVersion"] = view["version"]
        try:
            await api.call("POST", f"/v1/games/{game_id}/commands", body, token=token)
            moves += 1
        except HttpError as error:
            assert error.body["reason"] == "game/stale_version"  # a bot moved meanwhile (simultaneous choice)
    assert moves > 0
    results = (await api.call("GET", f"/v1/games/{game_id}"))["game"]["results"]
    assert sorted(r["playerName"] for r in results) == ["Anna", "greedy bot", "random bot"]


async def test_a_house_seat_cannot_be_claimed(api: JsonClient) -> None:
    bots = [{"seat": 1, "strategy": "random"}]
    game_id = (await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3, "houseBots": bots}))["game"]["gameId"]
    with pytest.raises(HttpError) as refused:
        await api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": "Ben", "seat": 1})
    assert (refused.value.status, refused.value.body["reason"]) == (409, "seat/taken")


@pytest.mark.parametrize(
    ("bots", "names"),
    [
        ([{"seat": 0, "strategy": "clever"}], "'clever'"),
        ([{"seat": 3, "strategy": "random"}], "seat 3"),
        ([{"seat": 1, "strategy": "random"}, {"seat": 1, "strategy": "greedy"}], "twice"),
    ],
)
async def test_a_bad_house_bot_is_refused_with_a_sentence(api: JsonClient, bots: list[Any], names: str) -> None:
    with pytest.raises(HttpError) as refused:
        await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3, "houseBots": bots})
    assert (refused.value.status, refused.value.body["reason"]) == (400, "request/invalid")
    assert names in refused.value.body["message"]


async def test_the_game_types_name_the_house_bot_strategies(api: JsonClient) -> None:
    types = (await api.call("GET", "/v1/gameTypes"))["gameTypes"]
    assert {t["name"]: t["botStrategies"] for t in types} == {g: _strategies(g) for g in GAMES}
    assert all("random" in t["botStrategies"] for t in types)


async def test_house_seats_left_waiting_by_a_stopped_server_move_when_a_server_starts(app: Any) -> None:
    """A game stored with its house seat to act, by a process that did not play it (as a server stopped
    right after storing the last move), goes on once a server's start-up resume has run."""
    quiet = Games(app.store)  # the same store, and no house bot observing it
    summary = await quiet.create_game(
        "oldmen", 3, {}, b"resume-house-seats", house_bots=[(0, "greedy"), (1, "greedy"), (2, "random")]
    )
    events = quiet.watch(summary.game_id, summary.version + 1, None, None)
    assert await app.house_bots.resume_all() >= 1
    moved = await asyncio.wait_for(anext(events), 30)
    assert moved.command_id.startswith(f"house:{summary.game_id}:")
    await events.aclose()
