"""A server for the REST tests (one per session, in its own thread) and a JSON-over-HTTP client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import aiohttp
import pytest

from tests.rest.harness import JsonClient, RunningServer, server_in_thread

#: The admin key of the REST test server (tournament administration).
ADMIN_KEY = "rest-admin-key-0123456789"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    # The schema fuzzer and the other REST tests share this server from one address: the per-client rates
    # are off here (their own tests use a server of their own, see test_errors.py).
    unlimited = {"rate_create_games": "0", "rate_claim_seats": "0", "rate_joins": "0", "rate_calls": "0"}
    with server_in_thread(tmp_path_factory.mktemp("rest-server"), admin_key=ADMIN_KEY, **unlimited) as running:
        yield running


@pytest.fixture
async def api(server: RunningServer) -> AsyncIterator[JsonClient]:
    async with aiohttp.ClientSession() as session:
        yield JsonClient(session, server.http_url)
