"""A bug in the server (an exception no part of the error table knows) reaches a gRPC client as INTERNAL
with reason ``server/internal`` and the table's sentence, never with the exception's own text (paths,
internals); the traceback goes to the server's log."""

from __future__ import annotations

from typing import NoReturn

import grpc
import pytest
from structlog.testing import capture_logs

from parlour.v1 import game_service_pb2 as pb
from service.api.grpc_errors import REASON_KEY
from service.app.errors import SERVER_FAILED
from service.bootstrap import App
from tests.e2e.helpers import stub


async def test_a_bug_is_internal_with_the_tables_sentence_and_its_traceback_in_the_log(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(game_id: str) -> NoReturn:
        raise RuntimeError("secret internals: /srv/parlour/keys password=hunter2")

    monkeypatch.setattr(app.games, "get_game", broken)
    channel, service = stub(f"127.0.0.1:{app.grpc_port}")
    async with channel:
        with capture_logs() as logs, pytest.raises(grpc.aio.AioRpcError) as caught:
            await service.GetGame(pb.GetGameRequest(game_id="0123456789abcdef"))
    error = caught.value
    assert error.code() == grpc.StatusCode.INTERNAL
    assert error.details() == SERVER_FAILED
    assert (REASON_KEY, "server/internal") in tuple(error.trailing_metadata() or ())
    assert "hunter2" not in str(error.debug_error_string())
    failed = [entry for entry in logs if entry["event"] == "call failed"]
    assert failed and failed[0]["failure"] == "RuntimeError" and failed[0]["exc_info"] is not None
