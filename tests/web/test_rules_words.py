"""Every card, character, land, loot token and track space says what it is and what it does, from the
rules' own words (GetGameRules, for the game's rules version): on the board and in the choices, in a
tooltip on hover, and in a box on focus; and a clocked table counts down to the server's deadline."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Page, expect

from tests.rest.harness import JsonClient
from tests.web.helpers import at, seat_view, sit, table
from tests.web.shots import save_shot


async def _rules(api: JsonClient, game: str) -> dict[tuple[str, str], dict[str, str]]:
    reply = await api.call("GET", f"/v1/gameTypes/{game}/rules")
    return {(e["kind"], e["id"]): e for e in reply["entries"]}


async def test_libertalias_characters_are_named_with_their_abilities_on_the_board_and_in_the_choices(
    page: Page, api: JsonClient, artifacts: Path
) -> None:
    rules = await _rules(api, "libertalia")
    game_id, tokens = await table(api, "libertalia", 3, "characters have names")
    view = await seat_view(api, game_id, tokens, 0)
    await sit(page, game_id, tokens, 0)
    await at(page, view["version"])
    hand = view["libertalia"]["seats"][0]["hand"]
    for rank in hand:
        entry = rules[("character", str(rank))]
        character = page.locator(".character").filter(has_text=entry["name"])
        await expect(character.first).to_be_visible()
        title = await character.first.get_attribute("title")
        assert title and entry["effect"] in title, title
    first = rules[("character", str(hand[0]))]
    choice = page.locator(".character[data-legal-command]").filter(has_text=first["name"]).first
    assert f"send the {first['name']} ({hand[0]}) to the island" in (await choice.get_attribute("title") or "")
    dummy = page.locator(".track li.dummy").first
    if await dummy.count():
        assert "no player holds" in (await dummy.get_attribute("title") or "")
    token = page.locator(".loot").first
    if await token.count():
        assert ":" in (await token.get_attribute("title") or "")
    target = page.locator(".character[title]").first
    await target.focus()
    tip = page.locator("#tip")
    await expect(tip).to_be_visible()
    await expect(tip).to_contain_text(await target.get_attribute("title") or "")
    # The box takes no click: what it covers (the next row of cards, say) can still be clicked.
    covered = await tip.evaluate(
        "t => { const r = t.getBoundingClientRect();"
        " return document.elementFromPoint(r.x + r.width / 2, r.y + 5) === t; }"
    )
    assert not covered, "the tooltip box takes the clicks meant for what it covers"
    await save_shot(page, artifacts / "libertalia-names.png")
    await page.keyboard.press("Escape")
    await expect(tip).to_be_hidden()


async def test_old_mens_orangutans_say_what_they_need_and_give(page: Page, api: JsonClient) -> None:
    orangutans = await _rules(api, "oldmen")
    game_id, tokens = await table(api, "oldmen", 3, "orangutans explained")
    view = await seat_view(api, game_id, tokens, 0)
    await sit(page, game_id, tokens, 0)
    await at(page, view["version"])
    row = view["oldmen"]["row"]
    shown = page.locator(".orangutan[title]")
    await expect(shown.first).to_be_visible()
    titles = [await shown.nth(i).get_attribute("title") for i in range(await shown.count())]
    for orangutan in row:
        effect = orangutans[("orangutan", orangutan["id"])]["effect"]
        assert any(effect in (t or "") for t in titles), (effect, titles)


async def test_a_clocked_table_counts_down_to_the_servers_deadline(page: Page, api: JsonClient) -> None:
    game_id, tokens = await table(api, "oldmen", 3, "a clock to watch", timeControl={"moveMs": "120000"})
    view = await seat_view(api, game_id, tokens, 0)
    await sit(page, game_id, tokens, 0)
    await at(page, view["version"])
    clock = page.locator("#clock")
    await expect(clock).to_contain_text(re.compile(r"\d+ s"))
    first = int(re.findall(r"(\d+) s", await clock.inner_text())[0])
    assert 100 <= first <= 120
    await expect(clock).not_to_have_text(await clock.inner_text(), timeout=5000)  # it counts down
