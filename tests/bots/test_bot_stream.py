"""The bot stream: identity by key, assignments and turns, and reconnecting to continue a game."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest

from parlour.bots import make_bot
from parlour.client import ParlourError
from parlour.runner import run_bot
from parlour.v1 import bot_service_pb2 as pb
from parlour.v1 import bot_service_pb2_grpc as pb_grpc
from parlour.v1 import game_pb2
from service.bootstrap import App
from tests.tournaments.helpers import BOT_KEY, create_and_register, start


async def _first_turn(target: str, name: str) -> tuple[pb.Assignment, pb.Turn]:
    """Connect as ``name``, wait for an assignment and a turn, then drop the connection unanswered."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = pb_grpc.BotServiceStub(channel).Connect()
        await call.write(pb.ConnectRequest(hello=pb.Hello(bot_name=name, bot_key=BOT_KEY)))
        assignment: pb.Assignment | None = None
        while True:
            message = await asyncio.wait_for(call.read(), timeout=30)
            assert isinstance(message, pb.ConnectResponse)
            if message.HasField("assignment"):
                assignment = message.assignment
            if message.HasField("turn"):
                assert assignment is not None, "the assignment comes before its turns"
                call.cancel()
                return assignment, message.turn


async def test_a_bot_that_disconnects_and_reconnects_continues_its_game(admin_app: App) -> None:
    """A bot drops its stream in the middle of its turn; connecting again with the same name and key, it is
    sent the same assignment and the same open turn, and plays the game to its end."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    tid = await create_and_register(target, ["steady-a", "steady-b", "flaky"], table_size=3)
    others = [
        asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g), max_games=1))
        for n in ("steady-a", "steady-b")
    ]
    await start(target, tid)
    assignment, turn = await _first_turn(target, "flaky")
    again, turn_again = await _first_turn(target, "flaky")
    assert (again.game_id, again.seat, again.seat_token) == (assignment.game_id, assignment.seat, assignment.seat_token)
    assert (turn_again.game_id, turn_again.view.version) == (turn.game_id, turn.view.version)
    run = await asyncio.wait_for(
        run_bot(target, "flaky", BOT_KEY, lambda g: make_bot("random", g), max_games=1), timeout=60
    )
    await asyncio.wait_for(asyncio.gather(*others), timeout=60)
    assert list(run.ended) == [assignment.game_id]
    summary = await admin_app.games.get_game(assignment.game_id)
    assert summary.status == game_pb2.GAME_STATUS_FINISHED
    assert {r.player_name for r in summary.results} == {"steady-a", "steady-b", "flaky"}


async def test_a_bot_name_is_kept_by_its_key(admin_app: App) -> None:
    """The first connection of a name sets its key (ListAssignments reads with it); another key for that
    name is refused."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    async with (
        _connected(target, pb.Hello(bot_name="owned", bot_key=BOT_KEY)),
        grpc.aio.insecure_channel(target) as channel,
    ):
        reply = await pb_grpc.BotServiceStub(channel).ListAssignments(
            pb.ListAssignmentsRequest(bot_name="owned"), metadata=[("x-parlour-bot-key", BOT_KEY)]
        )
        assert list(reply.assignments) == []
        with pytest.raises(ParlourError) as refused:
            await run_bot(target, "owned", "another-key-0123456789", lambda g: make_bot("random", g), max_games=1)
    assert refused.value.reason == "auth/bad_bot_key"


async def test_assignments_are_listed_for_a_bot_using_the_plain_game_api(admin_app: App) -> None:
    """ListAssignments (with the bot key as metadata) gives each seat and its token; the token works with
    GameService, so a bot can play without the stream."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    tid = await create_and_register(target, ["plain-a", "plain-b", "plain-c"], table_size=3)
    await start(target, tid)
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.BotServiceStub(channel)
        listed: list[pb.Assignment] = []
        for _ in range(50):
            reply = await stub.ListAssignments(
                pb.ListAssignmentsRequest(bot_name="plain-a"), metadata=[("x-parlour-bot-key", BOT_KEY)]
            )
            listed = list(reply.assignments)
            if listed:
                break
            await asyncio.sleep(0.1)
        with pytest.raises(grpc.aio.AioRpcError) as denied:
            await stub.ListAssignments(
                pb.ListAssignmentsRequest(bot_name="plain-a"), metadata=[("x-parlour-bot-key", "wrong-key-0123456789")]
            )
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert len(listed) == 1
    view = await admin_app.games.get_view(listed[0].game_id, listed[0].seat, listed[0].seat_token)
    assert view.seat == listed[0].seat


@contextlib.asynccontextmanager
async def _connected(target: str, hello: pb.Hello) -> AsyncIterator[pb.ConnectResponse]:
    """A bot connected with ``hello`` while the block runs: the server's first answer."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = pb_grpc.BotServiceStub(channel).Connect()
        try:
            await call.write(pb.ConnectRequest(hello=hello))
            message = await asyncio.wait_for(call.read(), timeout=30)
            assert isinstance(message, pb.ConnectResponse)
            yield message
        finally:
            call.cancel()


async def _hello(target: str, hello: pb.Hello) -> pb.ConnectResponse:
    """The server's first answer to ``hello`` (then the bot hangs up)."""
    async with _connected(target, hello) as message:
        return message


async def test_a_bot_says_which_games_it_plays_and_is_refused_for_others(admin_app: App) -> None:
    """The games of a bot's Hello are remembered: registering it for a tournament of another game is
    refused with a sentence saying why and what to do; an unknown game in a Hello is refused."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    hello = pb.Hello(bot_name="picky", bot_key=BOT_KEY, games=["verraeter", "libertalia"])
    async with _connected(target, hello) as welcome:
        assert welcome.welcome.bot_name == "picky"
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await create_and_register(target, ["picky"], game="oldmen")
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "'picky' said it plays only libertalia, verraeter, not oldmen" in str(refused.value.details())
        assert await create_and_register(target, ["picky"], game="verraeter")  # the name is now its for good
    await _hello(target, pb.Hello(bot_name="picky", bot_key=BOT_KEY))  # no games listed: any game
    assert await create_and_register(target, ["picky"], game="oldmen")
    with pytest.raises(grpc.aio.AioRpcError) as unknown:
        await _hello(target, pb.Hello(bot_name="picky", bot_key=BOT_KEY, games=["chess"]))
    assert unknown.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "there is no game 'chess'" in str(unknown.value.details())
