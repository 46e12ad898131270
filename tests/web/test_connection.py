"""A lost connection, as a person meets it: the page says the server cannot be reached and nothing can be
clicked until it answers again; a move the network lost is a sentence, sent again once the server is back;
a reload while the server is stopped shows the last board, greyed out, and play goes on once it restarts."""

from __future__ import annotations

import random
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
from playwright.async_api import Browser, Page, Route, expect

from service.bootstrap import App, build_app
from service.config import Settings
from tests.rest.harness import JsonClient, RunningServer
from tests.web.conftest import ARTIFACTS
from tests.web.helpers import READY, DroppingProxy, click_until_over, game_of, new_table, watched_context
from tests.web.shots import save_shot

#: Every legal command on the page can be used, or none can (each is disabled, or inside a disabled thing).
_CONTROLS_ENABLED = """() => [...document.querySelectorAll('[data-legal-command], .legal')]
  .map((e) => !e.disabled && !e.closest('[aria-disabled=true]'))"""


async def _controls(page: Page) -> list[bool]:
    return await page.evaluate(_CONTROLS_ENABLED)  # type: ignore[no-any-return]  # decoded JSON is Any


#: The versions of the events the page's log shows.
_VERSIONS = "items => items.map((i) => Number(i.dataset.version))"


def _allowed(problems: list[str]) -> list[str]:
    """The page's console errors other than the browser's own notes of the requests the outage refused."""
    return [p for p in problems if "Failed to load resource" not in p]


async def test_a_lost_connection_disables_the_table_and_says_so_until_it_is_back(
    browser: Browser, server: RunningServer
) -> None:
    proxy = DroppingProxy(int(server.http_url.rsplit(":", 1)[1]))
    context, problems = await watched_context(browser, server)
    url = await proxy.start()
    try:
        page = await context.new_page()
        await page.goto(url + "/")
        [link] = await new_table(page, "oldmen", ["person", "house:greedy", "house:greedy"], ["Anna", "", ""])
        await page.goto(link.replace(server.http_url, url))
        await page.wait_for_function(READY)
        await expect(page.locator("#turn")).to_contain_text("Your move")
        proxy.refusing = True
        proxy.drop()
        turn = page.locator("#turn")
        await expect(turn).to_contain_text("The server cannot be reached; reconnecting…")
        await expect(turn).not_to_contain_text("Your move")
        await expect(page.locator("#connection")).to_have_text("reconnecting…")
        controls = await _controls(page)
        assert controls and not any(controls), controls  # shown (the board stays readable), none usable
        await save_shot(page, ARTIFACTS / "connection-lost.png")
        proxy.refusing = False
        await expect(page.locator("#connection")).to_have_text("● live", timeout=15_000)
        await expect(turn).to_contain_text("Your move")
        assert all(await _controls(page))
        assert await click_until_over(page, random.Random(6)) > 0
    finally:
        await context.close()
        await proxy.close()
    assert _allowed(problems) == []


async def test_a_move_the_network_lost_is_a_sentence_and_is_sent_once_the_server_answers(
    browser: Browser, server: RunningServer, api: JsonClient
) -> None:
    context, problems = await watched_context(browser, server)
    try:
        page = await context.new_page()
        [link] = await new_table(page, "oldmen", ["person", "house:greedy", "house:greedy"], ["Anna", "", ""])
        game_id = game_of(link)
        await page.goto(link)
        await page.wait_for_function(READY)
        sent: list[str] = []

        async def lost(route: Route) -> None:
            sent.append(route.request.post_data_json["commandId"])
            await route.abort("connectionrefused")

        await page.route("**/commands", lost)
        version = await page.locator("#board").get_attribute("data-version")
        await page.locator("[data-legal-command]:visible").first.click()
        error = page.locator("#command-error")
        await expect(error).to_contain_text("Your move was not sent: the server cannot be reached; retrying")
        assert "TypeError" not in await error.inner_text() and "fetch" not in await error.inner_text()
        await expect(page.locator("#turn")).to_contain_text("your move is sent once it answers")
        assert not any(await _controls(page))
        await page.unroute("**/commands")  # the network is back: the page sends the same move again
        await expect(page.locator("#board")).not_to_have_attribute("data-version", str(version), timeout=15_000)
        await expect(error).to_have_text("")
        events = (await api.call("GET", f"/v1/games/{game_id}/events", pageSize=1000))["events"]
    finally:
        await context.close()
    assert sent and len(set(sent)) == 1  # one command id, however often it was tried
    assert sent[0] in {e["commandId"] for e in events}
    assert _allowed(problems) == []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def _server(data_dir: Path, port: int, prefix: str) -> AsyncIterator[App]:
    """A server on ``port`` over the embedded Redis in ``data_dir`` (a restart with the same three finds
    every game again), in the test's own event loop."""
    app = build_app(
        Settings(
            grpc_host="127.0.0.1",
            grpc_port=0,
            http_host="127.0.0.1",
            http_port=port,
            data_dir=data_dir,
            key_prefix=prefix,
            log_level="warning",
        )
    )
    await app.start()
    try:
        yield app
    finally:
        await app.stop(grace=0)


async def _create(base: str, body: dict[str, Any], name: str) -> tuple[str, str]:
    """A game made over REST with the server's bots in every seat but 0, claimed for ``name``: (id, token)."""
    async with aiohttp.ClientSession() as session:
        api = JsonClient(session, base)
        game_id = (await api.call("POST", "/v1/games", body))["game"]["gameId"]
        claimed = await api.call("POST", f"/v1/games/{game_id}/seats", {"seat": 0, "playerName": name})
        return game_id, claimed["seatToken"]


async def test_a_reload_while_the_server_is_stopped_says_so_and_play_goes_on_when_it_is_back(
    browser: Browser, tmp_path: Path, artifacts: Path
) -> None:
    port, prefix = _free_port(), f"web-restart-{uuid.uuid4().hex[:8]}"
    base = f"http://127.0.0.1:{port}"
    context = await browser.new_context(base_url=base, viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    context.on("weberror", lambda error: problems.append(f"page error: {error.error}"))
    context.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    try:
        async with _server(tmp_path, port, prefix):
            bots = [{"seat": 1, "strategy": "greedy"}, {"seat": 2, "strategy": "random"}]
            game_id, token = await _create(base, {"game": "oldmen", "seats": 3, "houseBots": bots}, "Anna")
            page = await context.new_page()
            await page.goto(f"/#/play/{game_id}/0?token={token}")
            await page.wait_for_function(READY)
            version = await page.locator("#board").get_attribute("data-version")
            await page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # the page's files are kept
        # The server is stopped: a reload shows the board this tab saw last, greyed out, and says why.
        await page.reload()
        turn = page.locator("#turn")
        await expect(turn).to_contain_text("The server cannot be reached")
        await expect(page.locator("#board")).to_have_attribute("data-version", str(version))
        controls = await _controls(page)
        assert controls and not any(controls), controls
        await save_shot(page, artifacts / "reload-server-stopped.png")
        # A tab that never saw the table says so too, and tries again by itself.
        other = await context.new_page()
        await other.goto(f"/#/play/{game_id}/0")
        await expect(other.locator("#unreachable")).to_contain_text("The server cannot be reached; retrying")
        async with _server(tmp_path, port, prefix):
            await expect(turn).to_contain_text("Your move", timeout=20_000)
            assert all(await _controls(page))
            await expect(other.locator("#turn")).to_contain_text("Your move", timeout=20_000)
            await other.close()
            assert await click_until_over(page, random.Random(7)) > 0
            await expect(page.locator("#board .results")).to_be_visible()
            async with aiohttp.ClientSession() as session:
                events = await JsonClient(session, base).call("GET", f"/v1/games/{game_id}/events", pageSize=1000)
            logged = await page.locator("#event-log li").evaluate_all(_VERSIONS)
    finally:
        await context.close()
    assert sorted(logged) == [int(e["version"]) for e in events["events"]]  # every event once, across the outage
    assert _allowed(problems) == []
