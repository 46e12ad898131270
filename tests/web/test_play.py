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
from playwright.async_api import Browser, BrowserContext, Page, expect
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from tests.rest.harness import JsonClient, RunningServer, server_in_thread
from tests.web.games import GAMES, SHOWN_TEXT, codes_in, house_strategy
from tests.web.shots import assert_written, fresh, save_shot

#: True once the page shows a clickable legal command, or the end of the game.
_READY = """() => document.querySelector('#turn')?.dataset.finished === 'true'
  || [...document.querySelectorAll('[data-legal-command], .legal[aria-expanded]')].some((e) => e.checkVisibility())"""


async def _watched_context(browser: Browser, server: RunningServer, **options: Any) -> tuple[BrowserContext, list[str]]:
    """A new browser context on the server, and the list its pages' errors are collected in."""
    context = await browser.new_context(base_url=server.http_url, **options)
    problems: list[str] = []
    context.on("weberror", lambda error: problems.append(f"page error: {error.error}"))
    context.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    return context, problems


async def _click_until_over(page: Page, rng: random.Random, *, shot: Path | None = None, keyboard: bool = False) -> int:
    """Click (or, with ``keyboard``, focus and press Enter on) random legal commands until the game is over;
    the number of commands chosen. A screenshot of the page is saved to ``shot`` after ten of them (or at the
    end, in a game over sooner)."""
    moves = 0
    for _ in range(2000):
        await page.wait_for_function(_READY, timeout=30_000)
        if await page.locator("#turn").get_attribute("data-finished") == "true":
            if shot is not None and moves < 10:
                await save_shot(page, shot)
            return moves
        version = await page.locator("#board").get_attribute("data-version")
        controls = page.locator("[data-legal-command]:visible")
        count = await controls.count()
        if not count:
            choosers = page.locator(".legal[aria-expanded]:visible")
            if await choosers.count():
                await _press(page, choosers.first, keyboard)  # open a menu of several commands on one thing
            continue  # or the board changed since: look again
        try:
            await _press(page, controls.nth(rng.randrange(count)), keyboard)
        except PlaywrightError:
            continue  # the board was drawn again (another seat moved) under the pointer: look again
        try:
            await page.wait_for_function(
                "v => document.querySelector('#board')?.dataset.version !== v"
                " || document.querySelector('#command-error')?.textContent",
                arg=version,
                timeout=10_000,
            )
        except PlaywrightTimeoutError:
            # The board was drawn again (a bot moved) between focusing a control and pressing Enter, so the
            # key reached no control and nothing was sent: look again.
            continue
        moves += 1
        if shot is not None and moves == 10:
            await save_shot(page, shot)
    raise AssertionError("the game did not end")


async def _press(page: Page, control: Any, keyboard: bool) -> None:
    if keyboard:
        await control.focus(timeout=3000)
        await page.keyboard.press("Enter")
    else:
        await control.click(timeout=3000)


async def _new_table(page: Page, game: str, kinds: list[str], names: list[str]) -> list[str]:
    """Make a table in the lobby's form; the invitation links of its human seats (in seat order)."""
    if not page.url.startswith("http"):
        await page.goto("/")
    await page.click("#new-table")
    await page.select_option("#new-game", game)
    await page.fill("#new-seats", str(len(kinds)))
    await page.locator("#new-seats").dispatch_event("change")
    for seat, kind in enumerate(kinds):
        await page.select_option(f"#seat-{seat}-kind", kind)
        if kind == "person":
            await page.fill(f"#seat-{seat}-name", names[seat])
    await page.click("#create-game")
    await expect(page.locator(".warning")).to_contain_text("whoever has a link plays that seat")
    links = page.locator("a.invitation")
    return [str(await links.nth(n).get_attribute("href")) for n in range(await links.count())]


async def _standings(api: JsonClient, game_id: str) -> list[dict[str, Any]]:
    summary = (await api.call("GET", f"/v1/games/{game_id}"))["game"]
    assert summary["status"] == "GAME_STATUS_FINISHED"
    return summary["results"]  # type: ignore[no-any-return]


async def _expect_standings_shown(page: Page, results: list[dict[str, Any]]) -> None:
    shown = page.locator("#board .results")
    for r in results:
        await expect(shown).to_contain_text(f"{r['rank']}. {r['playerName']} {r['score']}")


def _game_of(link: str) -> str:
    match = re.search(r"#/play/([0-9a-f]+)/(\d+)\?token=", link)
    assert match, link
    return match.group(1)


@pytest.mark.parametrize("game", GAMES)
async def test_a_person_plays_a_whole_game_against_the_servers_bots_by_clicking(
    page: Page, api: JsonClient, artifacts: Path, game: str
) -> None:
    strongest = house_strategy(game)
    [link] = await _new_table(page, game, ["person", f"house:{strongest}", "house:random"], ["Anna", "", ""])
    game_id = _game_of(link)
    await page.goto(link)
    await expect(page.locator("h1")).to_contain_text("playing as Anna (seat 0)")
    await expect(page).to_have_url(re.compile(rf"#/play/{game_id}/0$"))  # the token left the address bar
    shot = fresh(artifacts / f"play-{game}.png")
    moves = await _click_until_over(page, random.Random(game), shot=shot)
    assert moves > 0
    assert_written(shot)
    results = await _standings(api, game_id)
    assert sorted(r["playerName"] for r in results) == sorted(["Anna", f"{strongest} bot", "random bot"])
    await _expect_standings_shown(page, results)
    log = page.locator("#event-log")
    await expect(log).to_contain_text("The game is over")
    assert not re.search(r"\b(O\d\d|[a-z]+-[AB]|[a-z]+\d\w*)\b|_", await log.inner_text())  # no ids, no enum names
    assert codes_in(await page.evaluate(SHOWN_TEXT)) == []  # no data id anywhere on the page


@pytest.mark.parametrize("game", ["libertalia", "verraeter"])
async def test_two_people_play_one_table_from_two_browsers(
    browser: Browser, server: RunningServer, api: JsonClient, game: str
) -> None:
    first, first_problems = await _watched_context(browser, server, viewport={"width": 1200, "height": 900})
    second, second_problems = await _watched_context(browser, server, viewport={"width": 1200, "height": 900})
    try:
        host = await first.new_page()
        bot = f"house:{house_strategy(game)}"
        links = await _new_table(host, game, ["person", "person", bot], ["Anna", "Ben", ""])
        guest = await second.new_page()
        await host.goto(links[0])
        await guest.goto(links[1])
        await expect(guest.locator("h1")).to_contain_text("playing as Ben (seat 1)")
        await asyncio.gather(_click_until_over(host, random.Random(1)), _click_until_over(guest, random.Random(2)))
        results = await _standings(api, _game_of(links[0]))
        await _expect_standings_shown(host, results)
        await _expect_standings_shown(guest, results)
    finally:
        await first.close()
        await second.close()
    assert first_problems == second_problems == []


class DroppingProxy:
    """A TCP proxy in front of the server whose connections the test can cut (and refuse for a while), as
    a network that goes away does."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.refusing = False
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.close()
            return
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.port)
        self._writers += [writer, upstream_writer]
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer), return_exceptions=True)

    def drop(self) -> None:
        """Cut every open connection."""
        for writer in self._writers:
            writer.transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        self.drop()
        if self._server is not None:
            self._server.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


@pytest.mark.parametrize("game", ["oldmen", "libertalia"])
async def test_the_page_resumes_after_a_dropped_connection(
    browser: Browser, api: JsonClient, server: RunningServer, game: str
) -> None:
    proxy = DroppingProxy(int(server.http_url.rsplit(":", 1)[1]))
    context, problems = await _watched_context(browser, server)
    context_url = await proxy.start()
    try:
        page = await context.new_page()
        await page.goto(context_url + "/")
        bot = f"house:{house_strategy(game)}"
        [link] = await _new_table(page, game, ["person", bot, bot], ["Anna", "", ""])
        game_id = _game_of(link)
        token = link.split("token=")[1]
        await page.goto(link.replace(server.http_url, context_url))
        await expect(page.locator("#stream-state")).to_have_text("live")
        await page.wait_for_function(_READY)  # the bots have moved: the seat has a command to send while away
        proxy.refusing = True
        proxy.drop()
        await expect(page.locator("#stream-state")).not_to_have_text("live")
        view = (await api.call("GET", f"/v1/games/{game_id}/view", token=token, seat=0))["view"]
        body = {"seat": 0, "command": view["legalCommands"][0], "commandId": "moved-while-away"}
        moved = int((await api.call("POST", f"/v1/games/{game_id}/commands", body, token=token))["version"])
        proxy.refusing = False
        await expect(page.locator("#stream-state")).to_have_text("live", timeout=15_000)
        await expect(page.locator(f'#event-log li[data-version="{moved}"]')).to_have_count(1)
        await _click_until_over(page, random.Random(3))
        events = (await api.call("GET", f"/v1/games/{game_id}/events", pageSize=1000))["events"]
        logged = await page.locator("#event-log li").evaluate_all(
            "items => items.map((i) => Number(i.dataset.version))"
        )
    finally:
        await context.close()
        await proxy.close()
    assert sorted(logged) == [int(e["version"]) for e in events]  # every event once, none lost in the drop
    assert all("Failed to load resource" in p for p in problems)  # only the browser's note of the refused reconnects


async def test_a_rejected_command_shows_the_servers_sentence(browser: Browser, server: RunningServer) -> None:
    context, problems = await _watched_context(browser, server)
    try:
        page = await context.new_page()
        [link] = await _new_table(page, "oldmen", ["person", "house:greedy", "house:greedy"], ["Anna", "", ""])
        await page.goto(link)

        async def forged(route: Any) -> None:
            body = route.request.post_data_json
            body["command"] = {"oldmen": {"playCard": {"card": {"colour": "OLDMEN_COLOUR_RED", "value": 99}}}}
            await route.continue_(post_data=json.dumps(body))

        await page.route("**/commands", forged)
        await page.wait_for_function(_READY)
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
    context, problems = await _watched_context(browser, server, viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        phone = await context.new_page()
        [link] = await _new_table(phone, "verraeter", ["person", "house:random", "house:random"], ["Anna", "", ""])
        await phone.goto(link)
        await phone.wait_for_function(_READY)
        await save_shot(phone, artifacts / "play-verraeter-phone.png")
        width = await phone.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], width  # nothing wider than the screen
        assert await _click_until_over(phone, random.Random(4), keyboard=True) > 0
    finally:
        await context.close()
    assert problems == []


async def test_an_open_seat_is_played_by_parlour_bot_with_the_command_the_page_shows(
    page: Page, server: RunningServer, api: JsonClient
) -> None:
    [link] = await _new_table(page, "oldmen", ["person", "open", "house:random"], ["Anna", "", ""])
    game_id = _game_of(link)
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
        await _click_until_over(page, random.Random(5))
    finally:
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert f"game {game_id} is over" in out.decode()
    assert sorted(r["playerName"] for r in await _standings(api, game_id)) == ["Anna", "bot-1", "random bot"]


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
        context, problems = await _watched_context(browser, private)
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
