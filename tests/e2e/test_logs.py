"""Server logs are JSON lines with the game id, seat and command id bound, and no hidden cards."""

from __future__ import annotations

import json

import pytest

from parlour.client import GameClient
from service.logs import configure_logging
from tests.e2e.helpers import seated_game


async def test_command_logs_are_json_with_context_and_no_payload(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Applying a command logs one JSON line naming game, seat, command id and kind, but not the card."""
    configure_logging("info", json=True)
    try:
        async with GameClient(target) as client:
            game = await seated_game(client, seed=b"logs")
            seat = (await client.view(game.game_id)).pending_seats[0]
            own = await client.view(game.game_id, seat, game.tokens[seat])
            await client.submit(game.game_id, seat, game.tokens[seat], own.legal_commands[0], command_id="logged-1")
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    finally:
        with capsys.disabled():  # log to the real stderr again, not to this test's capture (closed after it)
            configure_logging("warning", json=True)
    applied = [line for line in lines if line.get("event") == "command applied"]
    assert len(applied) == 1
    entry = applied[0]
    assert (entry["game_id"], entry["seat"], entry["command_id"], entry["kind"]) == (
        game.game_id,
        seat,
        "logged-1",
        "play_card",
    )
    assert "card" not in json.dumps(entry).replace("play_card", "")
