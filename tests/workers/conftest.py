"""The Redis the workers of a test share: their parent's own embedded one, and ``REDIS_URL`` when set."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.conftest import _external_url, delete_prefix
from tests.workers.helpers import Store


def store_labels() -> list[str]:
    """The parent's embedded Redis always; ``REDIS_URL`` too when it is set."""
    return ["own", "external"] if _external_url() else ["own"]


@pytest.fixture(params=store_labels())
async def store(request: pytest.FixtureRequest, key_prefix: str) -> AsyncIterator[Store]:
    """Each Redis the workers must work on; the test's keys on an external one are deleted afterwards."""
    if request.param == "own":
        yield Store("own")
        return
    url = _external_url()
    assert url is not None
    yield Store("external", url, key_prefix)
    await delete_prefix(url, key_prefix)
