"""The SDK over two servers (``GameClient("a,b")``): a call one of them refuses with UNAVAILABLE (its Redis
is away) is sent again, on the other, with the same command id, and the command lands once.

The refusing server is a real one whose Redis (a server process of the test's own) is stopped; the other
is the test's usual server. A spy on the refusing server records each command it was given and how it
failed, so the test knows which command's first try went there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parlour.client import GameClient
from service.bootstrap import App, build_app
from service.store.embedded import RedisProcess
from service.store.failures import is_unavailable
from tests.conftest import RedisTarget, server_settings
from tests.e2e.helpers import seated_game

MOVES = 30  # at most; round robin sends the first try of about every other call to the refusing server


async def test_a_command_refused_as_unavailable_is_sent_to_the_other_server_and_lands_once(
    app: App, redis_process: RedisProcess, key_prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    away = build_app(server_settings(RedisTarget("own", redis_process.url), key_prefix, tmp_path / "away"))
    await away.start()
    refused: dict[str, BaseException] = {}
    submit = away.games.commands.submit

    async def spy(*args: Any, **kwargs: Any) -> Any:
        try:
            return await submit(*args, **kwargs)
        except BaseException as error:
            refused[kwargs["command_id"]] = error
            raise

    monkeypatch.setattr(away.games.commands, "submit", spy)
    try:
        redis_process.stop()
        healthy = f"127.0.0.1:{app.grpc_port}"
        async with GameClient(healthy) as alone, GameClient(f"127.0.0.1:{away.grpc_port},{healthy}") as both:
            game = await seated_game(alone)
            for _ in range(MOVES):
                view = await both.view(game.game_id)
                seat = view.pending_seats[0]
                mine = await both.view(game.game_id, seat, game.tokens[seat])
                command_id = f"move-{mine.version}"
                reply = await both.submit(
                    game.game_id,
                    seat,
                    game.tokens[seat],
                    mine.legal_commands[0],
                    expected_version=mine.version,
                    command_id=command_id,
                )
                if command_id in refused:
                    break
            else:
                raise AssertionError(f"no first try of {MOVES} commands went to the refusing server")
            assert is_unavailable(refused[command_id]), repr(refused[command_id])
            assert not reply.duplicate  # the refusing server applied nothing
            events = [e async for e in alone.events(game.game_id)]
        assert [e.version for e in events] == list(range(1, reply.version + 1))
        landed = [e.version for e in events if e.command_id == command_id]
        assert landed == list(range(mine.version + 1, reply.version + 1))  # once: one command's events
    finally:
        redis_process.start()
        await away.stop(grace=0)
