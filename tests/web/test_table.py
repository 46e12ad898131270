"""A seat's page at tables the test plays itself over REST: the test claims every seat, so nothing moves
unless the test moves it, and the page can be compared with the seat's view at the same version.

A five-seat Verräter game shows no data id; a sealed choice says it waits for the others; a clocked table
shows its clock; choosing which ability resolves first is a numbered list; every legal command of a view
is on the page exactly once; and colour never carries a fact alone."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.rest.harness import JsonClient
from tests.web.games import GAMES, SHOWN_TEXT, codes_in
from tests.web.helpers import NAMES, at, move, seat_view, sit, table


async def test_a_five_seat_verraeter_table_shows_no_data_id(page: Page, api: JsonClient) -> None:
    game_id, tokens = await table(api, "verraeter", 5, "five seats of verraeter")
    view = await seat_view(api, game_id, tokens, 0)
    assert "land5p" in {land["type"] for land in view["verraeter"]["lands"]}  # the 5-player lands are laid
    await sit(page, game_id, tokens, 0)
    await expect(page.locator(".land-type", has_text="5-player land")).to_have_count(2)
    rng = random.Random(5)
    for _ in range(12):
        version = await move(api, game_id, tokens, rng)
        await at(page, version)
        assert codes_in(await page.evaluate(SHOWN_TEXT)) == [], version
    await page.goto(f"/#/watch/{game_id}")
    await at(page, version)
    await expect(page.locator("#event-log li").first).to_be_visible()
    assert codes_in(await page.evaluate(SHOWN_TEXT)) == []


async def test_a_sealed_choice_says_it_waits_for_the_others(page: Page, api: JsonClient) -> None:
    game_id, tokens = await table(api, "libertalia", 3, "a sealed choice of libertalia")
    await sit(page, game_id, tokens, 0)
    turn = page.locator("#turn")
    await expect(turn).to_contain_text("the others choose at the same time")
    await page.locator("[data-legal-command]:visible").first.click()
    await expect(turn).to_have_text("Waiting for the others (Ben, Carl).")
    await expect(page.locator(".seat-panel.mine")).to_contain_text("has chosen today's character")


async def test_a_clocked_table_shows_the_clock(page: Page, api: JsonClient) -> None:
    game_id, tokens = await table(api, "libertalia", 3, "a clocked libertalia table", timeControl={"moveMs": 60000})
    await sit(page, game_id, tokens, 0)
    clock = page.locator("#clock")
    await expect(clock).to_have_text(re.compile(r"^your clock: (60|59|58) s left"))  # the server's deadline
    # It counts down.
    await expect(clock).to_have_text(re.compile(r"^your clock: (57|56|55|54) s left"), timeout=8000)
    await page.locator("[data-legal-command]:visible").first.click()
    # Chosen: no longer this seat's clock, but the others' (they choose at the same time).
    await expect(clock).to_have_text(re.compile(r"^clock: Ben \d+ s, Carl \d+ s$"))


async def test_choosing_which_ability_resolves_first_is_a_numbered_list(page: Page, api: JsonClient) -> None:
    game_id, tokens = await table(api, "libertalia", 3, "an ordering of libertalia")
    rng = random.Random(7)
    for _ in range(300):
        prompt = (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]["libertalia"].get("prompt")
        if prompt and prompt["kind"] == "LIBERTALIA_CHOICE_KIND_ORDER":
            break
        await move(api, game_id, tokens, rng)
    else:
        pytest.fail("no seat was asked to order its abilities")
    seat = prompt["seat"]
    view = await seat_view(api, game_id, tokens, seat)
    assert len(view["legalCommands"]) > 1
    assert all("chooseAbility" in c["libertalia"] for c in view["legalCommands"])
    await sit(page, game_id, tokens, seat)
    await at(page, view["version"])
    await expect(page.locator("#actions h2")).to_contain_text("Which resolves first?")
    items = page.locator("#actions ol.ordering > li")
    await expect(items).to_have_count(len(view["legalCommands"]))
    await expect(items.locator("button[data-legal-command]")).to_have_count(len(view["legalCommands"]))
    await expect(items.first).to_contain_text("next")  # "resolve the map next", "resolve character 9 next"
    await items.first.locator("button").click()
    await expect(page.locator("#board")).not_to_have_attribute("data-version", view["version"])
    assert await page.locator("#command-error").inner_text() == ""


#: Each legal command's control on the page: its index, and whether a person can reach it (it is shown, or
#: it is in the closed menu of a thing that is shown).
_CONTROLS = """() => [...document.querySelectorAll('[data-legal-command]')].map((e) => [
  Number(e.dataset.legalCommand),
  e.checkVisibility() || Boolean(e.closest('.choice-menu')?.closest('.legal[aria-expanded]')?.checkVisibility())])"""

#: The board's elements whose colour says something (a seat, a house, a card's colour, a loot token), each
#: with what it says in words (text and aria-label, not a tooltip) and, for a seat's colour, the seat whose
#: panel holds it.
_COLOURED = """() => [...document.querySelectorAll('#board *')]
  .filter((e) => e.classList.contains('card') || /\\b(seat|house|oldmen|loot)-\\w/.test(e.className))
  .map((e) => ({ classes: e.className,
    said: `${e.innerText} ${e.getAttribute('aria-label') || ''}`.trim(),
    panel: e.parentElement.closest('.seat-panel')?.dataset.seat ?? null }))"""


def _colour_problems(coloured: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The coloured elements whose colour is the only carrier of what they say: an element says nothing in
    words, a house or loot colour without its name, or a seat's colour outside that seat's panel without its
    player's name."""
    problems = []
    for e in coloured:
        said = e["said"].lower()
        named = [m for m in re.findall(r"\b(?:house|loot)-(\w+)", e["classes"]) if m.lower() not in said]
        seat = re.search(r"\bseat-(\d+)\b", e["classes"])
        unowned = seat and e["panel"] != seat[1] and NAMES[int(seat[1])].lower() not in said
        if not said or named or unowned:
            problems.append(e)
    return problems


@pytest.mark.parametrize("game", GAMES)
async def test_every_legal_command_is_on_the_page_once_and_colour_never_says_a_thing_alone(
    page: Page, api: JsonClient, game: str
) -> None:
    game_id, tokens = await table(api, game, 3, f"every command of {game} on the page")
    await sit(page, game_id, tokens, 0)
    rng = random.Random(game)
    checked = 0
    for _ in range(80):
        view = await seat_view(api, game_id, tokens, 0)
        if view["legalCommands"]:
            await at(page, view["version"])
            controls = await page.evaluate(_CONTROLS)
            assert sorted(index for index, _ in controls) == list(range(len(view["legalCommands"]))), view["version"]
            assert all(reachable for _, reachable in controls), controls
            assert _colour_problems(await page.evaluate(_COLOURED)) == [], view["version"]
            checked += 1
            if checked == 4:
                return
        await move(api, game_id, tokens, rng)
    pytest.fail(f"seat 0 had commands only {checked} times")
