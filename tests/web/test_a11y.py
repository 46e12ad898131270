"""Every page passes axe-core (bundled with the axe-playwright-python package, never fetched at test time)
with no serious or critical violation: the lobby, a new table and its invitations, each game's table while
it is the seat's move, the spectator's view, and a finished game's replay. The rule that a control's
accessible name contains its visible text (experimental in axe-core) is checked too."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Page, expect

from tests.rest.harness import JsonClient
from tests.rest.play import create_with_seats, play_to_end
from tests.web.conftest import ARTIFACTS
from tests.web.games import GAMES
from tests.web.helpers import READY, at, move, new_table, seat_view, sit, table
from tests.web.shots import save_shot

#: axe-core's options: its default rules, and the name-matches-text rule it leaves out by default.
OPTIONS = {"resultTypes": ["violations"], "rules": {"label-content-name-mismatch": {"enabled": True}}}


async def serious(page: Page, name: str) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now, each with its failing nodes.
    Every violation found, of any impact, is written to ``test-artifacts/axe-<name>.json``."""
    results = await Axe().run(page, options=OPTIONS)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"axe-{name}.json").write_text(json.dumps(results.response["violations"], indent=1), encoding="utf-8")
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["html"][:160] for n in v["nodes"][:5]]}
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


async def test_the_lobby_and_a_new_table_pass_axe(page: Page, api: JsonClient) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3, seed="YWNjZXNzaWJsZSBsb2JieSBnYW1l")
    await play_to_end(api, game_id, tokens, random.Random(1))
    await create_with_seats(api, "verraeter", 3)
    await page.goto("/")
    await expect(page.locator("#finished tbody tr").first).to_be_visible()
    assert await serious(page, "lobby") == []
    await page.click("#new-table")
    await expect(page.locator("#new-seat-list > li")).to_have_count(3)
    assert await serious(page, "new-table") == []
    await page.goto("/")
    await new_table(page, "libertalia", ["person", "person", "house:greedy"], ["Anna", "Ben", ""])
    assert await serious(page, "invitations") == []  # the invitations
    await page.goto("/")
    await expect(page.locator("#my-tables tbody tr").first).to_be_visible()
    assert await serious(page, "lobby-mine") == []  # with this browser's own tables


@pytest.mark.parametrize("game", GAMES)
async def test_each_games_table_and_watch_pass_axe(page: Page, api: JsonClient, artifacts: Path, game: str) -> None:
    game_id, tokens = await table(api, game, 3, f"an accessible table of {game}")
    rng = random.Random(game)
    for _ in range(12):
        await move(api, game_id, tokens, rng)
    while not (await seat_view(api, game_id, tokens, 0))["legalCommands"]:
        await move(api, game_id, tokens, rng)
    await sit(page, game_id, tokens, 0)
    await page.wait_for_function(READY)
    assert await serious(page, f"table-{game}") == [], game
    await page.goto(f"/#/watch/{game_id}")
    await expect(page.locator("h1")).to_contain_text("Watching")
    await at(page, (await api.call("GET", f"/v1/games/{game_id}"))["game"]["version"])
    assert await serious(page, f"watch-{game}") == [], game
    await save_shot(page, artifacts / f"watch-{game}.png")


async def test_a_finished_games_replay_passes_axe(page: Page, api: JsonClient) -> None:
    game_id, tokens = await create_with_seats(api, "libertalia", 3, seed="YW4gYWNjZXNzaWJsZSByZXBsYXk=")
    await play_to_end(api, game_id, tokens, random.Random(2))
    await page.goto(f"/#/replay/{game_id}?version=40")
    await expect(page.locator("#position")).to_contain_text("version 40 of")
    await expect(page.locator("#board")).to_be_visible()
    assert await serious(page, "replay") == []
