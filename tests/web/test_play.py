"""Playing in the browser: a person makes a table in the lobby, takes a seat through its invitation link
and plays a whole game by clicking the board, against bots the server plays; two people at one table;
a dropped connection; a rejected command; a phone-sized screen with the keyboard."""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Browser, Page, expect

from tests.rest.harness import JsonClient, RunningServer, server_in_thread
from tests.web.games import GAMES, SHOWN_TEXT, codes_in, house_strategy
from tests.web.helpers import (
    READY,
    DroppingProxy,
    click_until_over,
    expect_standings_shown,
    game_of,
    new_table,
    standings,
    watched_context,
)
from tests.web.shots import assert_written, fresh, save_shot


@pytest.mark.parametrize("game", GAMES)
async def test_a_person_plays_a_whole_game_against_the_servers_bots_by_clicking(
    page: Page, api: JsonClient, artifacts: Path, game: str
) -> None:
    strongest = house_strategy(game)
    [link] = await new_table(page, game, ["person", f"house:{strongest}", "house:random"], ["Anna", "", ""])
    game_id = game_of(link)
    await page.goto(link)
    await expect(page.locator("h1")).to_contain_text("playing as Anna (seat 0)")
    await expect(page).to_have_url(re.compile(rf"#/play/{game_id}/0$"))  # the token left the address bar
    shot = fresh(artifacts / f"play-{game}.png")
    moves = await click_until_over(page, random.Random(game), shot=shot)
    assert moves > 0
    assert_written(shot)
    results = await standings(api, game_id)
    assert sorted(r["playerName"] for r in results) == sorted(["Anna", f"{strongest} bot", "random bot"])
    await expect_standings_shown(page, results)
    log = page.locator("#event-log")
    await expect(log).to_contain_text("The game is over")
    assert not re.search(r"\b(O\d\d|[a-z]+-[AB]|[a-z]+\d\w*)\b|_", await log.inner_text())  # no ids, no enum names
    assert codes_in(await page.evaluate(SHOWN_TEXT)) == []  # no data id anywhere on the page


@pytest.mark.parametrize("game", ["libertalia", "verraeter"])
async def test_two_people_play_one_table_from_two_browsers(
    browser: Browser, server: RunningServer, api: JsonClient, game: str
) -> None:
    first, first_problems = await watched_context(browser, server, viewport={"width": 1200, "height": 900})
    second, second_problems = await watched_context(browser, server, viewport={"width": 1200, "height": 900})
    try:
        host = await first.new_page()
        bot = f"house:{house_strategy(game)}"
        links = await new_table(host, game, ["person", "person", bot], ["Anna", "Ben", ""])
        guest = await second.new_page()
        await host.goto(links[0])
        await guest.goto(links[1])
        await expect(guest.locator("h1")).to_contain_text("playing as Ben (seat 1)")
        await asyncio.gather(click_until_over(host, random.Random(1)), click_until_over(guest, random.Random(2)))
        results = await standings(api, game_of(links[0]))
        await expect_standings_shown(host, results)
        await expect_standings_shown(guest, results)
    finally:
        await first.close()
        await second.close()
    assert first_problems == second_problems == []


@pytest.mark.parametrize("game", ["oldmen", "libertalia"])
async def test_the_page_resumes_after_a_dropped_connection(
    browser: Browser, api: JsonClient, server: RunningServer, game: str
) -> None:
    proxy = DroppingProxy(int(server.http_url.rsplit(":", 1)[1]))
    context, problems = await watched_context(browser, server)
    context_url = await proxy.start()
    try:
        page = await context.new_page()
        streams: list[str] = []
        page.on("request", lambda request: streams.append(request.url) if ":watch?" in request.url else None)
        await page.goto(context_url + "/")
        bot = f"house:{house_strategy(game)}"
        [link] = await new_table(page, game, ["person", bot, bot], ["Anna", "", ""])
        game_id = game_of(link)
        token = link.split("token=")[1]
        await page.goto(link.replace(server.http_url, context_url))
        await expect(page.locator("#stream-state")).to_have_text("live")
        await page.wait_for_function(READY)  # the bots have moved: the seat has a command to send while away
        proxy.refusing = True
        proxy.drop()
        await expect(page.locator("#stream-state")).not_to_have_text("live")
        view = (await api.call("GET", f"/v1/games/{game_id}/view", token=token, seat=0))["view"]
        body = {"seat": 0, "command": view["legalCommands"][0], "commandId": "moved-while-away"}
        moved = int((await api.call("POST", f"/v1/games/{game_id}/commands", body, token=token))["version"])
        proxy.refusing = False
        await expect(page.locator("#stream-state")).to_have_text("live", timeout=15_000)
        await expect(page.locator(f'#event-log li[data-version="{moved}"]')).to_have_count(1)
        await click_until_over(page, random.Random(3))
        events = (await api.call("GET", f"/v1/games/{game_id}/events", pageSize=1000))["events"]
        logged = await page.locator("#event-log li").evaluate_all(
            "items => items.map((i) => Number(i.dataset.version))"
        )
    finally:
        await context.close()
        await proxy.close()
    assert sorted(logged) == [int(e["version"]) for e in events]  # every event once, none lost in the drop
    assert len(streams) >= 2 and all("byCommand=true" in url for url in streams)  # one message per command
    assert all("Failed to load resource" in p for p in problems)  # only the browser's note of the refused reconnects


async def test_a_rejected_command_shows_the_servers_sentence(browser: Browser, server: RunningServer) -> None:
    context, problems = await watched_context(browser, server)
    try:
        page = await context.new_page()
        [link] = await new_table(page, "oldmen", ["person", "house:greedy", "house:greedy"], ["Anna", "", ""])
        await page.goto(link)

        async def forged(route: Any) -> None:
            body = route.request.post_data_json
            body["command"] = {"oldmen": {"playCard": {"card": {"colour": "OLDMEN_COLOUR_RED", "value": 99}}}}
            await route.continue_(post_data=json.dumps(body))

        await page.route("**/commands", forged)
        await page.wait_for_function(READY)
        await page.locator("[data-legal-command]:visible").first.click()
        await expect(page.locator("#command-error")).to_contain_text("Not accepted:")
        sentence = (await page.locator("#command-error").inner_text()).removeprefix("Not accepted: ")
    finally:
        await context.close()
    assert "red" in sentence.lower()
    assert all("status of 4" in p for p in problems)  # only the browser's own note of the refused request


async def test_a_phone_sized_screen_plays_with_the_keyboard(
    browser: Browser, server: RunningServer, artifacts: Path
) -> None:
    context, problems = await watched_context(browser, server, viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        phone = await context.new_page()
        [link] = await new_table(phone, "verraeter", ["person", "house:random", "house:random"], ["Anna", "", ""])
        await phone.goto(link)
        await phone.wait_for_function(READY)
        await save_shot(phone, artifacts / "play-verraeter-phone.png")
        width = await phone.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1] <= 390, width  # nothing wider than the screen (which did not widen)
        assert await click_until_over(phone, random.Random(4), keyboard=True) > 0
    finally:
        await context.close()
    assert problems == []


async def test_an_open_seat_is_played_by_parlour_bot_with_the_command_the_page_shows(
    page: Page, server: RunningServer, api: JsonClient
) -> None:
    [link] = await new_table(page, "oldmen", ["person", "open", "house:random"], ["Anna", "", ""])
    game_id = game_of(link)
    shown = await page.locator('.open-seats pre[data-seat="1"]').inner_text()
    assert shown.startswith("parlour bot ") and f"--join {game_id} --seat 1" in shown
    args = shown.split()[1:]  # after "parlour"
    args[args.index("--server") + 1] = server.grpc_target
    process = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "parlour"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await page.goto(link)
    try:
        await click_until_over(page, random.Random(5))
    finally:
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert f"game {game_id} is over" in out.decode()
    assert sorted(r["playerName"] for r in await standings(api, game_id)) == ["Anna", "bot-1", "random bot"]


async def test_a_server_that_wants_an_api_key_gets_it_from_the_new_table_form(
    browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    admin = "web-admin-key-0123456789"
    with server_in_thread(tmp_path_factory.mktemp("private-web"), require_api_key=True, admin_key=admin) as private:
        async with aiohttp.ClientSession() as session:
            headers = {"X-Parlour-Admin-Key": admin}
            async with session.post(
                f"{private.http_url}/v1/admin/api-keys", json={"name": "web"}, headers=headers
            ) as r:
                key = (await r.json())["apiKey"]
        context, problems = await watched_context(browser, private)
        try:
            page = await context.new_page()
            await page.goto("/")
            await page.click("#new-table")
            await page.click("#create-game")
            await expect(page.locator("#new-error")).to_contain_text("API key")
            await page.fill("#api-key", key)
            await page.click("#create-game")
            await expect(page.locator("a.invitation")).to_have_count(1)
        finally:
            await context.close()
    assert all("status of 401" in p for p in problems)  # the browser's own note of the refused first try
