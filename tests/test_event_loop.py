"""Which event loop a server process runs on: asyncio's by default (able to tell when it goes idle), uvloop
when asked for."""

from __future__ import annotations

import asyncio
import time

import pytest

from service.event_loop import IdleAwareLoop, call_when_idle, loop_name, run


async def _loop_type() -> str:
    loop = asyncio.get_running_loop()
    return "asyncio" if isinstance(loop, IdleAwareLoop) else type(loop).__module__


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


async def _order_of_idle_callback() -> list[str]:
    """What ran, in order, when a callback waits for the loop to go idle while others keep it busy."""
    ran: list[str] = []

    def busy(left: int) -> None:  # a chain of ready callbacks: the loop is never idle until it ends
        ran.append(f"busy {left}")
        if left:
            asyncio.get_running_loop().call_soon(busy, left - 1)

    idle = asyncio.get_running_loop().create_future()
    assert call_when_idle(lambda: (ran.append("idle"), idle.set_result(None)))
    busy(3)
    await idle
    return ran


def test_a_callback_waiting_for_the_loop_to_go_idle_runs_once_nothing_else_is_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PARLOUR_EVENT_LOOP", raising=False)
    assert run(_order_of_idle_callback()) == ["busy 3", "busy 2", "busy 1", "busy 0", "idle"]


async def _asked() -> bool:
    return call_when_idle(lambda: None)


def test_a_loop_that_cannot_tell_when_it_is_idle_says_so_and_schedules_nothing() -> None:
    with asyncio.Runner() as runner:  # asyncio's own loop, not the server's
        assert runner.run(_asked()) is False


async def _idle_callback_under_saturation() -> tuple[bool, float, float]:
    """A loop kept busy 50 ms at a time with a brief idle moment (a timer due at once; epoll waits a
    millisecond) between: whether a callback waiting for it to go idle ran during that time, the loop's
    busy share at its end, and how long after that the callback ran."""
    loop = asyncio.get_running_loop()
    assert isinstance(loop, IdleAwareLoop)
    ran = loop.create_future()
    for step in range(20):
        if step == 3:  # saturated by now
            assert call_when_idle(lambda: ran.set_result(time.perf_counter()))
        time.sleep(0.05)  # noqa: ASYNC251 - requests' work, holding the loop on purpose
        await asyncio.sleep(0.00005)  # nothing ready for a moment
        if ran.done():
            break
    busy, ended = loop.busy, time.perf_counter()
    return ran.done(), busy, await ran - ended


def test_a_saturated_loops_brief_idle_moments_do_not_count_as_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARLOUR_EVENT_LOOP", raising=False)
    ran_while_busy, busy, after = run(_idle_callback_under_saturation())
    assert not ran_while_busy
    assert busy >= 0.9
    assert 0 <= after < 0.5  # once the loop was idle for a while


async def _busy_seconds_of_work_and_of_a_wait() -> tuple[float, float]:
    """How much the loop's busy seconds grew while a callback held it 50 ms, and while it waited 50 ms."""
    loop = asyncio.get_running_loop()
    assert isinstance(loop, IdleAwareLoop)
    await asyncio.sleep(0)
    start = loop.busy_seconds
    time.sleep(0.05)  # noqa: ASYNC251 - holding the loop is the point
    await asyncio.sleep(0)
    worked = loop.busy_seconds - start
    start = loop.busy_seconds
    await asyncio.sleep(0.05)
    return worked, loop.busy_seconds - start


def test_the_loop_counts_the_time_work_holds_it_and_not_the_time_it_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARLOUR_EVENT_LOOP", raising=False)
    worked, waited = run(_busy_seconds_of_work_and_of_a_wait())
    assert worked >= 0.05
    assert waited < 0.025
