"""Playing a game with nothing but JSON over HTTP."""

from __future__ import annotations

import random
import uuid
from typing import Any

from tests.rest.harness import JsonClient


async def create_with_seats(api: JsonClient, game: str, seats: int, seed: str = "") -> tuple[str, dict[int, str]]:
    """A new game (seeded when ``seed`` is given, base64) with every seat claimed; (game id, tokens by seat)."""
    body: dict[str, Any] = {"game": game, "seats": seats}
    if seed:
        body["seed"] = seed
    game_id = (await api.call("POST", "/v1/games", body))["game"]["gameId"]
    tokens: dict[int, str] = {}
    for n in range(seats):
        claimed = await api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": f"player {n}"})
        tokens[claimed["seat"]] = claimed["seatToken"]
    return game_id, tokens


async def play_to_end(api: JsonClient, game_id: str, tokens: dict[int, str], rng: random.Random) -> int:
    """Play every pending seat with a random legal command until the game is over; the number of commands."""
    commands = 0
    while True:
        view = (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]
        if view["status"] == "GAME_STATUS_FINISHED":
            return commands
        for seat in view["pendingSeats"]:
            mine = (await api.call("GET", f"/v1/games/{game_id}/view", token=tokens[seat], seat=seat))["view"]
            if not mine["legalCommands"]:
                continue
            body = {
                "seat": seat,
                "command": rng.choice(mine["legalCommands"]),
                "expectedVersion": mine["version"],
                "commandId": uuid.uuid4().hex,
            }
            reply = await api.call("POST", f"/v1/games/{game_id}/commands", body, token=tokens[seat])
            assert int(reply["version"]) > int(mine["version"])
            commands += 1
