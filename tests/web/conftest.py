"""A server with the web page, and a real headless browser (Debian's chromium driven by Playwright)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Browser, Page, async_playwright

from tests.rest.harness import JsonClient, RunningServer, server_in_thread

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = Path(os.environ.get("PARLOUR_CHROMIUM", "/usr/bin/chromium"))
# Quiet, offline and sandbox-free (tests run as root in CI): nothing is fetched from outside.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with server_in_thread(tmp_path_factory.mktemp("web-server")) as running:
        yield running


@pytest.fixture
async def api(server: RunningServer) -> AsyncIterator[JsonClient]:
    """The server's REST API, as JSON."""
    async with aiohttp.ClientSession() as session:
        yield JsonClient(session, server.http_url)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def chromium() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(f"no chromium at {CHROMIUM}: `make test` installs it (or set PARLOUR_CHROMIUM)")
    return CHROMIUM


@pytest.fixture(scope="session")
async def browser(chromium: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS, headless=True)
        yield launched
        await launched.close()


@pytest.fixture
async def page(browser: Browser, server: RunningServer) -> AsyncIterator[Page]:
    """A page on the server; the test fails if the page logs an error or throws."""
    context = await browser.new_context(base_url=server.http_url, viewport={"width": 1400, "height": 1000})
    opened = await context.new_page()
    problems: list[str] = []
    opened.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    opened.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    yield opened
    await context.close()
    assert problems == []
