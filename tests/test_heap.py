"""A serving process's start-up objects are left out of the garbage collector's later full collections."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from service.heap import settle_start_up


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Nothing frozen before the test, and everything frozen by it put back after it."""
    gc.unfreeze()
    yield
    gc.unfreeze()


class _Node:
    """An object in a reference cycle (freed only by the collector)."""

    def __init__(self) -> None:
        self.me = self


@pytest.mark.usefixtures("unfrozen")
def test_objects_alive_at_start_up_are_no_longer_walked_and_later_ones_still_are() -> None:
    """After settle_start_up the collector's generations hold almost nothing of what was alive (a full
    collection no longer walks it), and a cycle made afterwards is still collected."""
    alive = len(gc.get_objects())
    settle_start_up()
    assert gc.get_freeze_count() >= alive // 2
    assert len(gc.get_objects()) < alive // 10
    node = _Node()
    gone = weakref.ref(node)
    del node
    gc.collect()
    assert gone() is None
