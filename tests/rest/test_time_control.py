"""A game with a clock created over REST/JSON: the summary carries the time control, and a bad one is a
400 whose sentence names the field."""

from __future__ import annotations

from tests.rest.harness import JsonClient
from tests.rest.test_errors import expect


async def test_a_game_is_created_with_a_time_control(api: JsonClient) -> None:
    body = {"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "5000", "bankMs": "60000", "incrementMs": "1000"}}
    created = (await api.call("POST", "/v1/games", body))["game"]
    expected = {"moveMs": "5000", "bankMs": "60000", "incrementMs": "1000", "maxTimeouts": 3}
    assert created["timeControl"] == expected
    assert (await api.call("GET", f"/v1/games/{created['gameId']}"))["game"]["timeControl"] == expected


async def test_a_bad_time_control_is_a_400_naming_the_field(api: JsonClient) -> None:
    body = {"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "0"}}
    error = await expect(400, "request/invalid", api.call("POST", "/v1/games", body))
    assert "move_ms must be 1 to 3600000" in error["message"]
