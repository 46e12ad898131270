"""The OpenAPI document rendered for people at ``/docs/`` (Swagger UI from the packaged copy, nothing fetched
from another site), in a real headless browser."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page, expect

from tests.web.shots import save_shot


async def test_the_api_documentation_page_lists_every_call_from_the_servers_own_document(
    page: Page, artifacts: Path
) -> None:
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    await page.goto("/docs")
    await expect(page.get_by_text("/v1/games/{game_id}/commands").first).to_be_visible(timeout=15_000)
    await expect(page.get_by_text("/v1/gameTypes").first).to_be_visible()
    document = await (await page.request.get("/openapi.json")).json()
    for path in document["paths"]:
        await expect(page.get_by_text(path, exact=True).first).to_be_attached()
    origin = page.url.split("/docs")[0]
    assert fetched and all(url.startswith(origin) for url in fetched), "the page fetched from another site"
    await save_shot(page, artifacts / "api-docs.png")
