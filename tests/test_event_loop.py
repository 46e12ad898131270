"""Which event loop a server process runs on: asyncio's by default, uvloop when asked for."""

from __future__ import annotations

import asyncio

import pytest

from service.event_loop import loop_name, run


async def _loop_type() -> str:
    return type(asyncio.get_running_loop()).__module__


@pytest.mark.parametrize(("setting", "expected"), [(None, "asyncio"), ("asyncio", "asyncio"), ("uvloop", "uvloop")])
def test_the_loop_is_asyncios_unless_uvloop_is_asked_for(
    monkeypatch: pytest.MonkeyPatch, setting: str | None, expected: str
) -> None:
    if setting is None:
        monkeypatch.delenv("PARLOUR_EVENT_LOOP", raising=False)
    else:
        monkeypatch.setenv("PARLOUR_EVENT_LOOP", setting)
    assert loop_name() == expected
    assert run(_loop_type()).split(".")[0] == expected
