"""The boards as a person sees them, at tables the test plays itself over REST: Verräter's lands stay on
the ring when they are clickable."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Page, expect

from tests.rest.harness import JsonClient
from tests.web.helpers import at, move, seat_view, sit, table
from tests.web.shots import save_shot


async def until(
    api: JsonClient, game_id: str, tokens: dict[int, str], seat: int, wanted: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Random moves of whoever must act until ``seat``'s view is ``wanted``; that view."""
    rng = random.Random(game_id)
    for _ in range(400):
        view = await seat_view(api, game_id, tokens, seat)
        if wanted(view):
            return view
        await move(api, game_id, tokens, rng)
    raise AssertionError("the seat never got the view wanted")


def kinds(view: dict[str, Any]) -> set[str]:
    """The kinds of the view's legal commands ("playCard", "placeBuilding", ...)."""
    game = view["game"]
    return {next(iter(command[game])) for command in view["legalCommands"]}


#: Each land's box, by position, relative to the ring's top left corner; the ring's box; the seat panels' top.
_LAYOUT = """() => {
  const ring = document.querySelector('#board .ring').getBoundingClientRect();
  const lands = Object.fromEntries([...document.querySelectorAll('#board .ring .land')].map((l) => {
    const box = l.getBoundingClientRect();
    return [l.dataset.position, { x: box.x - ring.x, y: box.y - ring.y, width: box.width, height: box.height,
      legal: l.classList.contains('legal') }];
  }));
  const seats = document.querySelector('#board .seats').getBoundingClientRect();
  return { ring: { width: ring.width, height: ring.height }, lands, seatsTop: seats.y - ring.y };
}"""


async def test_verraeters_clickable_lands_stay_on_the_ring(page: Page, api: JsonClient, artifacts: Path) -> None:
    game_id, tokens = await table(api, "verraeter", 3, "lands on the ring")
    view = await until(api, game_id, tokens, 0, lambda v: bool(kinds(v) & {"placeBuilding", "chooseBattlefield"}))
    await sit(page, game_id, tokens, 0)
    await at(page, view["version"])
    await expect(page.locator("#board .land.legal").first).to_be_visible()
    playing = await page.evaluate(_LAYOUT)
    await save_shot(page.locator("#board"), artifacts / "verraeter-lands-clickable.png")
    await page.goto(f"/#/watch/{game_id}")
    await expect(page.locator("h1")).to_contain_text("Watching")
    await at(page, view["version"])
    await expect(page.locator("#board .ring .land").first).to_be_visible()
    watching = await page.evaluate(_LAYOUT)
    await save_shot(page.locator("#board"), artifacts / "verraeter-lands-spectator.png")

    assert any(land["legal"] for land in playing["lands"].values())
    assert playing["lands"].keys() == watching["lands"].keys()
    size = playing["ring"]["width"]
    for position, land in playing["lands"].items():
        # Inside the ring's box, its centre on the ring (not beyond its edge), above the seats' panels...
        assert land["x"] >= 0 and land["y"] >= 0, (position, land)
        assert land["x"] + land["width"] <= size and land["y"] + land["height"] <= playing["ring"]["height"]
        centre = (land["x"] + land["width"] / 2 - size / 2, land["y"] + land["height"] / 2 - size / 2)
        assert (centre[0] ** 2 + centre[1] ** 2) ** 0.5 <= size / 2, (position, land)
        assert land["y"] + land["height"] <= playing["seatsTop"], (position, land)
        # ... and exactly where the spectator sees it.
        seen = watching["lands"][position]
        assert abs(land["x"] - seen["x"]) <= 1 and abs(land["y"] - seen["y"]) <= 1, (position, land, seen)
