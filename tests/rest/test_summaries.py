"""A game's summary says whose move it is and its after-the-end policy, so a lobby needs no view per game."""

from __future__ import annotations

import random
import uuid

from tests.rest.harness import JsonClient
from tests.rest.play import create_with_seats, play_to_end


async def test_the_summary_names_the_seats_to_move_after_every_command_and_none_at_the_end(api: JsonClient) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    for _ in range(4):
        summary = (await api.call("GET", f"/v1/games/{game_id}"))["game"]
        view = (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]
        assert summary["pendingSeats"] == view["pendingSeats"] and summary["pendingSeats"]
        seat = view["pendingSeats"][0]
        mine = (await api.call("GET", f"/v1/games/{game_id}/view", token=tokens[seat], seat=seat))["view"]
        body = {"seat": seat, "command": mine["legalCommands"][0], "commandId": uuid.uuid4().hex}
        await api.call("POST", f"/v1/games/{game_id}/commands", body, token=tokens[seat])
    listed = (await api.call("GET", "/v1/games", game="oldmen"))["games"]
    assert (
        next(g for g in listed if g["gameId"] == game_id)["pendingSeats"]
        == (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]["pendingSeats"]
    )
    await play_to_end(api, game_id, tokens, random.Random(5))
    assert (await api.call("GET", f"/v1/games/{game_id}"))["game"]["pendingSeats"] == []


async def test_the_summary_states_the_after_the_end_policy(api: JsonClient) -> None:
    public = (await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3}))["game"]
    kept = (await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3, "keepHiddenAfterEnd": True}))["game"]
    assert public["keepHiddenAfterEnd"] is False and kept["keepHiddenAfterEnd"] is True
