"""Server logs are JSON lines with the game id, seat and command id bound, and no hidden cards."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from engines.contract import AnyGame
from engines.envelope import wrap_command
from engines.registry import GAMES
from parlour.client import GameClient, ParlourError
from parlour.v1 import game_pb2
from service.bootstrap import App
from service.logs import configure_logging
from tests.e2e.helpers import SeatedGame, seated_game


async def test_command_logs_are_json_with_context_and_no_payload(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Applying a command logs one JSON line naming game, seat, command id and kind, but not the card."""
    configure_logging("info", json=True)
    try:
        async with GameClient(target) as client:
            game = await seated_game(client, seed=b"logs")
            seat = (await client.view(game.game_id)).pending_seats[0]
            own = await client.view(game.game_id, seat, game.tokens[seat])
            await client.submit(game.game_id, seat, game.tokens[seat], own.legal_commands[0], command_id="logged-1")
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    finally:
        with capsys.disabled():  # log to the real stderr again, not to this test's capture (closed after it)
            configure_logging("warning", json=True)
    applied = [line for line in lines if line.get("event") == "command applied"]
    assert len(applied) == 1
    entry = applied[0]
    assert (entry["game_id"], entry["seat"], entry["command_id"], entry["kind"]) == (
        game.game_id,
        seat,
        "logged-1",
        "play_card",
    )
    assert "card" not in json.dumps(entry).replace("play_card", "")


def _mutations(command: Message) -> Iterator[Message]:
    """Copies of ``command`` with one integer (or enum) field changed: commands the server understands but
    that are mostly illegal now (a card not in the hand, a seat or place that is not allowed)."""
    for path, field, index in _int_fields(command, ()):
        for delta in (1, 3, 7, -1, 11):
            copy = type(command)()
            copy.CopyFrom(command)
            holder: Any = copy
            for name in path:
                holder = getattr(holder, name)
            if index is None:
                setattr(holder, field, max(0, getattr(holder, field) + delta))
            else:
                values = getattr(holder, field)
                values[index] = max(0, values[index] + delta)
            yield copy


def _int_fields(message: Message, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str, int | None]]:
    for field, value in message.ListFields():
        if field.type == field.TYPE_MESSAGE and not field.is_repeated:
            yield from _int_fields(value, (*path, field.name))
        elif field.type in (field.TYPE_INT32, field.TYPE_INT64, field.TYPE_ENUM):
            if field.is_repeated:
                yield from ((path, field.name, i) for i in range(len(value)))
            else:
                yield path, field.name, None


async def _rest_rejection(http: str, seated: SeatedGame, seat: int, command: game_pb2.Command) -> str:
    """The sentence of the same illegal command sent over REST (409)."""
    body = {"seat": seat, "command": json_format.MessageToDict(command), "commandId": uuid.uuid4().hex}
    headers = {"Authorization": f"Bearer {seated.tokens[seat]}"}
    url = f"{http}/v1/games/{seated.game_id}/commands"
    async with aiohttp.ClientSession() as session, session.post(url, json=body, headers=headers) as reply:
        assert reply.status == 409
        return str((await reply.json())["message"])


@pytest.mark.parametrize("game", [pytest.param(g, id=g.spec.name) for g in GAMES])
async def test_a_game_played_at_debug_level_logs_no_hidden_value(
    app: App, target: str, game: AnyGame, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole game at debug level, with illegal commands along the way: no log line carries the sentence
    of a rejection (it speaks from the actor's view: "your hand is 3, 6"), a command's contents or a hand."""
    configure_logging("debug", json=True)
    rng = random.Random(13)
    rejections: list[str] = []
    submitted: list[str] = []
    http = f"http://127.0.0.1:{app.http_port}"
    try:
        async with GameClient(target) as client:
            seated = await seated_game(client, game.spec.name, game.spec.min_seats, seed=b"debug-logs")
            while (spectator := await client.view(seated.game_id)).status != game_pb2.GAME_STATUS_FINISHED:
                seat = rng.choice(list(spectator.pending_seats))
                mine = await client.view(seated.game_id, seat, seated.tokens[seat])
                command = rng.choice(list(mine.legal_commands))
                if len(rejections) < 40 and rng.random() < 0.5:
                    for wrong in _mutations(getattr(command, game.spec.name)):
                        try:
                            await client.submit(seated.game_id, seat, seated.tokens[seat], wrap_command(game, wrong))
                        except ParlourError as error:
                            if error.reason == "command/illegal":
                                rejections.append(error.message)
                                rejections.append(await _rest_rejection(http, seated, seat, wrap_command(game, wrong)))
                                break
                        else:
                            break  # the changed command was legal too; play on from the new position
                    continue
                submitted.append(json_format.MessageToJson(getattr(command, game.spec.name), indent=None))
                await client.submit(seated.game_id, seat, seated.tokens[seat], command)
        log = capsys.readouterr().err
    finally:
        with capsys.disabled():  # log to the real stderr again, not to this test's capture (closed after it)
            configure_logging("warning", json=True)
    assert rejections and submitted
    assert "command applied" in log and "request rejected" in log
    for sentence in rejections:
        assert sentence not in log, f"a rejection's sentence is in the log: {sentence}"
    for payload in submitted:
        assert payload not in log
    assert "your hand" not in log and "hand is" not in log


async def test_a_server_bug_is_logged_with_its_traceback_as_json_frames_without_locals(
    app: App, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An operator reading the JSON log of a bug sees where it happened (type, message, file, line and
    function of each frame), not a one-line repr; the frames' variables are not written (a game's hidden
    state may be among them)."""
    hidden_hand = "the-secret-hand"

    async def broken_get_game(game_id: str) -> Any:
        local_state = hidden_hand  # a local a traceback with locals would print
        raise RuntimeError(f"bug while reading {len(local_state)} things")

    monkeypatch.setattr(app.games, "get_game", broken_get_game)
    configure_logging("info", json=True)
    try:
        async with GameClient(f"127.0.0.1:{app.grpc_port}") as client:
            with pytest.raises(ParlourError):
                await client.game("0123456789abcdef")
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    finally:
        with capsys.disabled():
            configure_logging("warning", json=True)
    failed = [line for line in lines if line.get("event") == "call failed"]
    assert len(failed) == 1
    (raised,) = failed[0]["exception"]
    assert (raised["exc_type"], raised["exc_value"]) == ("RuntimeError", "bug while reading 15 things")
    assert any(frame["name"] == "broken_get_game" and frame["lineno"] > 0 for frame in raised["frames"])
    assert hidden_hand not in json.dumps(failed[0])
