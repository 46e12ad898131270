"""What the browser tests do as a person would (make a table in the lobby, click until a game is over) and
as the other players at a table the test plays itself over REST (claim every seat, move a seat)."""

from __future__ import annotations

import asyncio
import base64
import random
import re
import uuid
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Locator, Page, expect
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from tests.rest.harness import JsonClient, RunningServer
from tests.web.shots import save_shot

__all__ = [
    "NAMES",
    "READY",
    "DroppingProxy",
    "at",
    "click_until_over",
    "expect_standings_shown",
    "game_of",
    "move",
    "new_table",
    "result_line",
    "seat_view",
    "sit",
    "standings",
    "table",
    "watched_context",
]

#: The players of the tables the test plays itself, by seat.
NAMES = ["Anna", "Ben", "Carl", "Dora", "Emil"]

#: True once the page shows a legal command a person can use now, or the end of the game.
READY = """() => document.querySelector('#turn')?.dataset.finished === 'true'
  || [...document.querySelectorAll('[data-legal-command], .legal[aria-expanded]')]
    .some((e) => e.checkVisibility() && !e.disabled && !e.closest('[aria-disabled=true]'))"""


async def watched_context(browser: Browser, server: RunningServer, **options: Any) -> tuple[BrowserContext, list[str]]:
    """A new browser context on the server, and the list its pages' errors are collected in."""
    context = await browser.new_context(base_url=server.http_url, **options)
    problems: list[str] = []
    context.on("weberror", lambda error: problems.append(f"page error: {error.error}"))
    context.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    return context, problems


async def click_until_over(page: Page, rng: random.Random, *, shot: Path | None = None, keyboard: bool = False) -> int:
    """Click (or, with ``keyboard``, focus and press Enter on) random legal commands until the game is over;
    the number of commands chosen. A screenshot of the page is saved to ``shot`` after ten of them (or at the
    end, in a game over sooner)."""
    moves = 0
    for _ in range(2000):
        await page.wait_for_function(READY, timeout=30_000)
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


async def _press(page: Page, control: Locator, keyboard: bool) -> None:
    if keyboard:
        await control.focus(timeout=3000)
        await page.keyboard.press("Enter")
    else:
        await control.click(timeout=3000)


async def new_table(page: Page, game: str, kinds: list[str], names: list[str]) -> list[str]:
    """Make a table in the lobby's form; the invitation links of its human seats (in seat order). A name
    left empty ("") is not typed: the seat keeps the form's default."""
    if not page.url.startswith("http"):
        await page.goto("/")
    await page.click("#new-table")
    await page.select_option("#new-game", game)
    await page.fill("#new-seats", str(len(kinds)))
    for seat, kind in enumerate(kinds):
        await page.select_option(f"#seat-{seat}-kind", kind)
        if kind == "person" and names[seat]:
            await page.fill(f"#seat-{seat}-name", names[seat])
    await page.click("#create-game")
    await expect(page.locator(".warning")).to_contain_text("whoever has a link plays that seat")
    links = page.locator("a.invitation")
    return [str(await links.nth(n).get_attribute("href")) for n in range(await links.count())]


def game_of(link: str) -> str:
    """The game id of an invitation link."""
    match = re.search(r"#/play/([0-9a-f]+)/(\d+)\?token=", link)
    assert match, link
    return match.group(1)


async def standings(api: JsonClient, game_id: str) -> list[dict[str, Any]]:
    """The results of a finished game."""
    summary = (await api.call("GET", f"/v1/games/{game_id}"))["game"]
    assert summary["status"] == "GAME_STATUS_FINISHED"
    return summary["results"]  # type: ignore[no-any-return]  # decoded JSON is Any


def result_line(r: dict[str, Any]) -> str:
    """How the page writes one seat's result: rank, name, seat and score ("1. greedy bot (seat 2) 24")."""
    return f"{r['rank']}. {r['playerName']} (seat {r.get('seat', 0)}) {r['score']}"


async def expect_standings_shown(page: Page, results: list[dict[str, Any]]) -> None:
    shown = page.locator("#board .results")
    for r in results:
        await expect(shown).to_contain_text(result_line(r))


# --- tables the test plays itself over REST -------------------------------------------------------


async def table(api: JsonClient, game: str, seats: int, seed: str, **body: Any) -> tuple[str, dict[int, str]]:
    """A new game dealt from ``seed`` with every seat claimed (Anna, Ben, ...); (game id, tokens by seat)."""
    created = await api.call(
        "POST", "/v1/games", {"game": game, "seats": seats, "seed": base64.b64encode(seed.encode()).decode(), **body}
    )
    game_id = created["game"]["gameId"]
    tokens: dict[int, str] = {}
    for name in NAMES[:seats]:
        claimed = await api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": name})
        tokens[claimed["seat"]] = claimed["seatToken"]
    return game_id, tokens


async def seat_view(api: JsonClient, game_id: str, tokens: dict[int, str], seat: int) -> dict[str, Any]:
    """The seat's own view, with its legal commands."""
    return (await api.call("GET", f"/v1/games/{game_id}/view", token=tokens[seat], seat=seat))["view"]  # type: ignore[no-any-return]  # decoded JSON is Any


async def move(api: JsonClient, game_id: str, tokens: dict[int, str], rng: random.Random) -> int:
    """One random legal command of the first pending seat; the game's version after it."""
    seat = (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]["pendingSeats"][0]
    view = await seat_view(api, game_id, tokens, seat)
    body = {"seat": seat, "command": rng.choice(view["legalCommands"]), "commandId": uuid.uuid4().hex}
    return int((await api.call("POST", f"/v1/games/{game_id}/commands", body, token=tokens[seat]))["version"])


async def sit(page: Page, game_id: str, tokens: dict[int, str], seat: int) -> None:
    """Open the seat's page through its invitation link."""
    await page.goto(f"/#/play/{game_id}/{seat}?token={tokens[seat]}")
    await expect(page.locator("h1")).to_contain_text(f"playing as {NAMES[seat]} (seat {seat})")


async def at(page: Page, version: int | str) -> None:
    """Wait until the page shows the board at ``version``."""
    await expect(page.locator("#board")).to_have_attribute("data-version", str(version))


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
