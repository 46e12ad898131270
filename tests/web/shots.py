"""Screenshots the browser tests save under ``test-artifacts/`` (not kept in git).
Each is checked to be written by the test that saves it: a file an earlier run left is removed first."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Locator, Page

__all__ = ["assert_written", "fresh", "save_shot"]


def fresh(path: Path) -> Path:
    """``path``, with any file an earlier run left there removed (so it cannot pass for this run's)."""
    path.unlink(missing_ok=True)
    return path


def assert_written(path: Path) -> None:
    assert path.is_file(), f"no screenshot at {path.name}"
    assert path.stat().st_size > 0, f"the screenshot {path.name} is empty"


async def save_shot(target: Page | Locator, path: Path) -> None:
    """Save a screenshot of ``target`` (a whole page, or one element) to ``path`` and check it was written."""
    fresh(path)
    if isinstance(target, Page):
        await target.screenshot(path=str(path), full_page=True)
    else:
        await target.screenshot(path=str(path))
    assert_written(path)
