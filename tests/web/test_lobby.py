"""Making a table and coming back to it, as a person does: the invitation links stay listed (with copy
buttons) and Back after "take this seat" shows them again; a seat's name is what its player typed or
"Player N", and only the viewer is "you"; the seat count keeps the names typed; "My tables" in the lobby
lists the seats this browser holds with whose move it is; results name each seat."""

from __future__ import annotations

import random
import re
import uuid
from pathlib import Path

from playwright.async_api import Browser, Page, expect

from tests.rest.harness import JsonClient, RunningServer
from tests.web.helpers import game_of, new_table, result_line, watched_context
from tests.web.shots import save_shot


async def test_invitations_stay_listed_and_back_after_taking_a_seat_shows_them_again(
    browser: Browser, server: RunningServer, artifacts: Path
) -> None:
    context, problems = await watched_context(browser, server, viewport={"width": 1200, "height": 900})
    await context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        page = await context.new_page()
        links = await new_table(page, "oldmen", ["person", "person", "house:greedy"], ["", "Ben", ""])
        game_id = game_of(links[0])
        await expect(page).to_have_url(re.compile(rf"#/invitations/{game_id}$"))
        listed = page.locator("ol.links > li")
        await expect(listed).to_have_count(2)
        await expect(listed.nth(0)).to_contain_text("seat 0 (Player 1)")  # left empty: a default, not "You"
        await expect(listed.nth(1)).to_contain_text("seat 1 (Ben)")
        await page.locator('button.copy[data-seat="1"]').click()
        await expect(listed.nth(1).locator(".copied")).to_have_text("copied")
        assert await page.evaluate("navigator.clipboard.readText()") == links[1]
        await save_shot(page, artifacts / "invitations.png")

        await page.locator('a.invitation[data-seat="0"]').click()
        await expect(page.locator("h1")).to_contain_text("playing as Player 1 (seat 0)")
        await page.go_back()
        await expect(page).to_have_url(re.compile(rf"#/invitations/{game_id}$"))
        await expect(page.locator("a.invitation")).to_have_count(2)
        assert [await a.get_attribute("href") for a in await page.locator("a.invitation").all()] == links

        # Ben's browser: the first seat is "Player 1", and only Ben himself is "you".
        guest = await context.browser.new_context(base_url=server.http_url)  # type: ignore[union-attr]  # the page's context always has its browser
        try:
            ben = await guest.new_page()
            await ben.goto(links[1])
            await expect(ben.locator("h1")).to_contain_text("playing as Ben (seat 1)")
            await expect(ben.locator('.seat-panel[data-seat="0"] h3')).to_contain_text("Player 1 (seat 0)")
            badges = await ben.locator(".seat-badge").all_inner_texts()
            assert not any(re.match(r"you\b", b, re.IGNORECASE) for b in badges), badges
        finally:
            await guest.close()

        # The lobby lists the table among this browser's own, with whose move it is and the way back.
        await page.goto("/")
        mine = page.locator(f'#my-tables tr[data-game-id="{game_id}"][data-seat="0"]')
        await expect(mine).to_contain_text("seat 0 (Player 1)")
        await expect(mine.locator(".to-move")).to_have_text(re.compile(r"your move|Ben \(seat 1\)|greedy bot"))
        await expect(page.locator(f'#my-tables tr[data-game-id="{game_id}"][data-seat="1"]')).to_have_count(0)
        await save_shot(page, artifacts / "lobby-my-tables.png")
        await mine.locator("a.my-table-link").click()
        await expect(page.locator("h1")).to_contain_text("playing as Player 1 (seat 0)")
    finally:
        await context.close()
    assert problems == []


async def test_the_seat_count_keeps_the_names_typed(page: Page) -> None:
    await page.goto("/#/new")
    await page.select_option("#new-game", "oldmen")
    await page.fill("#seat-0-name", "Anna")
    await page.fill("#new-seats", "4")
    await page.locator("#new-seats").blur()
    await expect(page.locator("#new-seat-list > li")).to_have_count(4)
    await page.select_option("#seat-3-kind", "person")
    await page.fill("#seat-3-name", "Dora")
    await page.fill("#new-seats", "")  # on the way to another count: nothing changes yet
    await expect(page.locator("#new-seat-list > li")).to_have_count(4)
    await page.fill("#new-seats", "3")
    await page.locator("#new-seats").blur()
    await expect(page.locator("#new-seat-list > li")).to_have_count(3)
    await page.fill("#new-seats", "4")
    await expect(page.locator("#new-seat-list > li")).to_have_count(4)
    await expect(page.locator("#seat-0-name")).to_have_value("Anna")
    await expect(page.locator("#seat-3-name")).to_have_value("Dora")
    await expect(page.locator("#seat-1-name")).to_have_value("")
    await expect(page.locator("#seat-1-name")).to_have_attribute("placeholder", "Player 2")


async def test_results_name_each_seat_when_bots_share_a_name(page: Page, api: JsonClient) -> None:
    bots = [{"seat": 1, "strategy": "greedy"}, {"seat": 2, "strategy": "greedy"}]
    body = {"game": "oldmen", "seats": 3, "houseBots": bots}
    game_id = (await api.call("POST", "/v1/games", body))["game"]["gameId"]
    token = (await api.call("POST", f"/v1/games/{game_id}/seats", {"seat": 0, "playerName": "Anna"}))["seatToken"]
    rng = random.Random(11)
    for _ in range(500):
        view = (await api.call("GET", f"/v1/games/{game_id}/view", token=token, seat=0))["view"]
        if view["status"] == "GAME_STATUS_FINISHED":
            break
        if view["legalCommands"]:
            command = {"seat": 0, "command": rng.choice(view["legalCommands"]), "commandId": uuid.uuid4().hex}
            await api.call("POST", f"/v1/games/{game_id}/commands", command, token=token)
        else:
            await page.wait_for_timeout(50)  # the server's bots are moving
    results = view["results"]
    await page.goto(f"/#/watch/{game_id}")
    shown = page.locator("#board .results")
    for r in results:
        await expect(shown).to_contain_text(result_line(r))
    await expect(shown).to_contain_text("greedy bot (seat 1)")
    await expect(shown).to_contain_text("greedy bot (seat 2)")
    await expect(page.locator("#event-log")).to_contain_text("greedy bot (seat 2)")
    await page.goto("/")
    await expect(page.locator(f'#finished tr[data-game-id="{game_id}"]')).to_contain_text(result_line(results[0]))


def test_the_page_keeps_a_copy_of_every_one_of_its_files() -> None:
    """The service worker's list of the page's files names every file there is (a reload while the server
    is away needs them all)."""
    web = Path(__file__).resolve().parents[2] / "clients" / "web"
    files = {str(p.relative_to(web)) for p in web.rglob("*") if p.is_file() and p.name != "sw.js"}
    listed = re.search(r"const FILES = \[(.*?)\];", (web / "sw.js").read_text(encoding="utf-8"), re.DOTALL)
    assert listed
    assert set(re.findall(r'"([^"]+)"', listed.group(1))) - {"./"} == files


async def test_the_lobby_and_the_invitations_fit_a_phone(
    browser: Browser, server: RunningServer, artifacts: Path
) -> None:
    context, problems = await watched_context(browser, server, viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        phone = await context.new_page()
        [link, _] = await new_table(phone, "verraeter", ["person", "person", "house:random"], ["Anna", "Ben", ""])
        await save_shot(phone, artifacts / "invitations-phone.png")
        width = "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth)"
        assert await phone.evaluate(width) <= 390
        await phone.goto(link)
        await expect(phone.locator("#board")).to_be_visible()
        await phone.goto("/")
        await expect(phone.locator("#my-tables tbody tr")).to_have_count(1)
        await expect(phone.locator("#running tbody tr").first).to_be_visible()
        await save_shot(phone, artifacts / "lobby-phone.png")
        assert await phone.evaluate(width) <= 390  # nothing wider than the screen
    finally:
        await context.close()
    assert problems == []
