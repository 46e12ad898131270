"""Bad input over gRPC gets the right status code, a machine-readable reason and a clear sentence, and
changes nothing in the log."""

from __future__ import annotations

import grpc
import pytest

from parlour.client import GameClient
from parlour.v1 import bot_service_pb2, bot_service_pb2_grpc, game_pb2, game_service_pb2, oldmen_pb2
from service.config import Settings
from tests.e2e.helpers import SeatedGame, auth, seated_game, stub

Code = grpc.StatusCode


async def _call(target: str, method: str, request: object, token: str | None = None) -> grpc.aio.AioRpcError:
    channel, service = stub(target)
    async with channel:
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await getattr(service, method)(request, metadata=auth(token) if token else None)
    return failure.value


def _reason(error: grpc.aio.AioRpcError) -> str:
    return next((str(v) for k, v in error.trailing_metadata() or () if k == "parlour-error-reason"), "")


def _expect(error: grpc.aio.AioRpcError, code: grpc.StatusCode, reason: str, *words: str) -> None:
    assert error.code() == code, error.details()
    assert _reason(error) == reason
    for word in words:
        assert word in (error.details() or ""), error.details()


@pytest.fixture
async def game(target: str) -> SeatedGame:
    async with GameClient(target) as client:
        return await seated_game(client, seed=b"bad-input")


async def _view(target: str, game: SeatedGame, seat: int) -> game_pb2.GameView:
    async with GameClient(target) as client:
        return await client.view(game.game_id, seat, game.tokens[seat])


async def _version(target: str, game_id: str) -> int:
    async with GameClient(target) as client:
        return (await client.game(game_id)).version


def _submit(
    game: SeatedGame, seat: int, command: game_pb2.Command, **fields: object
) -> game_service_pb2.SubmitCommandRequest:
    return game_service_pb2.SubmitCommandRequest(
        game_id=game.game_id,
        seat=seat,
        command=command,
        command_id=str(fields.pop("command_id", "cmd-x")),
        **fields,  # type: ignore[arg-type]  # deliberately wrong field types, to see them refused
    )


async def test_unknown_game_type(target: str) -> None:
    """Creating a game nobody plays names the games the server does play."""
    error = await _call(target, "CreateGame", game_service_pb2.CreateGameRequest(game="chess", seats=2))
    _expect(error, Code.INVALID_ARGUMENT, "game/unknown_type", "chess", "oldmen")


async def test_wrong_seat_count(target: str) -> None:
    """Five seats of a 3-4 player game is refused with the allowed range."""
    error = await _call(target, "CreateGame", game_service_pb2.CreateGameRequest(game="oldmen", seats=5))
    _expect(error, Code.INVALID_ARGUMENT, "game/bad_config", "3 to 4")


async def test_bad_option_value_and_unknown_option(target: str) -> None:
    """An option value outside its allowed set, or an unknown option, is refused with what is allowed."""
    bad = game_service_pb2.CreateGameRequest(game="oldmen", seats=4, options={"match_deals": "3"})
    _expect(await _call(target, "CreateGame", bad), Code.INVALID_ARGUMENT, "game/bad_config", "'1', '2'")
    unknown = game_service_pb2.CreateGameRequest(game="oldmen", seats=4, options={"speed": "fast"})
    _expect(await _call(target, "CreateGame", unknown), Code.INVALID_ARGUMENT, "game/bad_config", "speed")


async def test_unknown_game_id(target: str) -> None:
    """A game id that does not exist is NOT_FOUND, for views, commands and streams alike."""
    error = await _call(target, "GetView", game_service_pb2.GetViewRequest(game_id="nosuchgame"))
    _expect(error, Code.NOT_FOUND, "game/not_found", "nosuchgame")
    channel, service = stub(target)
    async with channel:
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            async for _ in service.WatchGame(game_service_pb2.WatchGameRequest(game_id="nosuchgame")):
                pass
    _expect(failure.value, Code.NOT_FOUND, "game/not_found")


async def test_malformed_commands(target: str, game: SeatedGame) -> None:
    """An empty command, another game's command, or a card that cannot exist is INVALID_ARGUMENT."""
    view = await _view(target, game, 0)
    seat = view.pending_seats[0]
    token = game.tokens[seat]
    empty = await _call(target, "SubmitCommand", _submit(game, seat, game_pb2.Command()), token)
    _expect(empty, Code.INVALID_ARGUMENT, "command/malformed", "oldmen")
    no_kind = await _call(
        target, "SubmitCommand", _submit(game, seat, game_pb2.Command(oldmen=oldmen_pb2.OldmenCommand())), token
    )
    _expect(no_kind, Code.INVALID_ARGUMENT, "command/malformed", "play_card")
    card = oldmen_pb2.OldmenCard(colour=oldmen_pb2.OLDMEN_COLOUR_RED, value=11)
    bad_card = game_pb2.Command(oldmen=oldmen_pb2.OldmenCommand(play_card=oldmen_pb2.OldmenPlayCard(card=card)))
    _expect(
        await _call(target, "SubmitCommand", _submit(game, seat, bad_card), token),
        Code.INVALID_ARGUMENT,
        "command/malformed",
    )
    waiting = (seat + 1) % 4  # malformed before illegal: from a seat whose turn it is not, still malformed
    _expect(
        await _call(target, "SubmitCommand", _submit(game, waiting, bad_card), game.tokens[waiting]),
        Code.INVALID_ARGUMENT,
        "command/malformed",
    )
    stale = _submit(game, seat, bad_card, expected_version=view.version - 1)  # malformed before stale, too
    _expect(await _call(target, "SubmitCommand", stale, token), Code.INVALID_ARGUMENT, "command/malformed")
    assert await _version(target, game.game_id) == view.version


async def test_illegal_command_and_not_your_turn(target: str, game: SeatedGame) -> None:
    """A card not in hand is FAILED_PRECONDITION with the engine's sentence; so is acting out of turn."""
    view = await _view(target, game, 0)
    seat = view.pending_seats[0]
    mine = {
        (c.oldmen.play_card.card.colour, c.oldmen.play_card.card.value)
        for c in (await _view(target, game, seat)).legal_commands
    }
    other = next(
        oldmen_pb2.OldmenCard(colour=colour, value=value)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        for colour in range(1, 6)
        for value in range(1, 11)
        if (colour, value) not in mine
    )
    command = game_pb2.Command(oldmen=oldmen_pb2.OldmenCommand(play_card=oldmen_pb2.OldmenPlayCard(card=other)))
    illegal = await _call(target, "SubmitCommand", _submit(game, seat, command), game.tokens[seat])
    _expect(illegal, Code.FAILED_PRECONDITION, "command/illegal", "not in your hand")
    waiting = (seat + 1) % 4
    legal = (await _view(target, game, seat)).legal_commands[0]
    not_turn = await _call(target, "SubmitCommand", _submit(game, waiting, legal), game.tokens[waiting])
    _expect(not_turn, Code.FAILED_PRECONDITION, "command/not_your_turn", "not your turn")
    assert await _version(target, game.game_id) == view.version


async def test_tokens_missing_bad_or_for_another_seat(target: str, game: SeatedGame) -> None:
    """No token is UNAUTHENTICATED, an unknown one too, and another seat's token is PERMISSION_DENIED."""
    view = await _view(target, game, 0)
    seat = view.pending_seats[0]
    legal = (await _view(target, game, seat)).legal_commands[0]
    request = _submit(game, seat, legal)
    _expect(await _call(target, "SubmitCommand", request), Code.UNAUTHENTICATED, "auth/missing_token", "token")
    _expect(await _call(target, "SubmitCommand", request, "not-a-token"), Code.UNAUTHENTICATED, "auth/bad_token")
    other = game.tokens[(seat + 1) % 4]
    _expect(await _call(target, "SubmitCommand", request, other), Code.PERMISSION_DENIED, "auth/wrong_seat")
    peek = game_service_pb2.GetViewRequest(game_id=game.game_id, seat=seat)
    _expect(await _call(target, "GetView", peek, other), Code.PERMISSION_DENIED, "auth/wrong_seat")
    assert await _version(target, game.game_id) == view.version


async def test_stale_expected_version(target: str, game: SeatedGame) -> None:
    """A command decided on an old version is ABORTED and the log is unchanged."""
    view = await _view(target, game, 0)
    seat = view.pending_seats[0]
    legal = (await _view(target, game, seat)).legal_commands[0]
    stale = _submit(game, seat, legal, expected_version=view.version - 1)
    _expect(await _call(target, "SubmitCommand", stale, game.tokens[seat]), Code.ABORTED, "game/stale_version")
    assert await _version(target, game.game_id) == view.version


async def test_retry_is_idempotent_and_reuse_with_another_body_is_refused(target: str, game: SeatedGame) -> None:
    """The same command id and command applies once; the same id with another command is refused."""
    async with GameClient(target) as client:
        view = await client.view(game.game_id)
        seat = view.pending_seats[0]
        own = await client.view(game.game_id, seat, game.tokens[seat])
        first = await client.submit(game.game_id, seat, game.tokens[seat], own.legal_commands[0], command_id="once")
        again = await client.submit(game.game_id, seat, game.tokens[seat], own.legal_commands[0], command_id="once")
        assert (again.version, again.duplicate) == (first.version, True)
        assert list(again.events) == list(first.events)
        assert (await client.game(game.game_id)).version == first.version
    reused = _submit(game, seat, own.legal_commands[-1], command_id="once")
    if own.legal_commands[-1] != own.legal_commands[0]:
        error = await _call(target, "SubmitCommand", reused, game.tokens[seat])
        _expect(error, Code.INVALID_ARGUMENT, "command/id_reused", "once")
    assert await _version(target, game.game_id) == first.version


async def test_seat_already_taken_and_none_free(target: str, game: SeatedGame) -> None:
    """Claiming a claimed seat, or any seat of a full game, fails and says what to do."""
    taken = game_service_pb2.ClaimSeatRequest(game_id=game.game_id, seat=1, player_name="late")
    _expect(await _call(target, "ClaimSeat", taken), Code.FAILED_PRECONDITION, "seat/taken", "seat 1")
    any_seat = game_service_pb2.ClaimSeatRequest(game_id=game.game_id, player_name="late")
    _expect(await _call(target, "ClaimSeat", any_seat), Code.FAILED_PRECONDITION, "seat/none_free", "spectator")
    nameless = game_service_pb2.ClaimSeatRequest(game_id=game.game_id, player_name="")
    _expect(await _call(target, "ClaimSeat", nameless), Code.INVALID_ARGUMENT, "request/invalid", "player_name")


async def test_command_after_the_game_ended(target: str, game: SeatedGame) -> None:
    """Once the game is over, a command is FAILED_PRECONDITION game/over."""
    from parlour.bots import RandomBot
    from parlour.play import play_seat

    async with GameClient(target) as client:
        import asyncio

        await asyncio.gather(*(play_seat(client, game.game_id, s, t, RandomBot(s)) for s, t in enumerate(game.tokens)))
        version = (await client.game(game.game_id)).version
    card = oldmen_pb2.OldmenCard(colour=oldmen_pb2.OLDMEN_COLOUR_RED, value=1)
    command = game_pb2.Command(oldmen=oldmen_pb2.OldmenCommand(play_card=oldmen_pb2.OldmenPlayCard(card=card)))
    error = await _call(target, "SubmitCommand", _submit(game, 0, command, command_id="late"), game.tokens[0])
    _expect(error, Code.FAILED_PRECONDITION, "game/over", "over")
    assert await _version(target, game.game_id) == version


LIMIT = Settings().max_message_bytes  # the test servers' limit: the default, 64 KiB


def _sized(game: SeatedGame, size: int) -> game_service_pb2.SubmitCommandRequest:
    """A command for seat 0 whose serialized request is exactly ``size`` bytes (a long command id)."""
    request = _submit(game, 0, game_pb2.Command(), command_id="")
    request.command_id = "x" * (size - request.ByteSize() - 4)  # the field's tag and length take 4 bytes
    assert request.ByteSize() == size
    return request


async def test_a_request_over_the_limit_is_too_large_with_its_reason_and_request_id(
    target: str, game: SeatedGame
) -> None:
    """A request one byte over the limit is refused by the server itself: RESOURCE_EXHAUSTED with reason
    request/too_large, a sentence naming the limit and the request id, and it never reaches the game."""
    version = await _version(target, game.game_id)
    channel, service = stub(target)
    async with channel:
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await service.SubmitCommand(
                _sized(game, LIMIT + 1), metadata=[*auth(game.tokens[0]), ("x-request-id", "too-large-1")]
            )
    error = failure.value
    _expect(error, Code.RESOURCE_EXHAUSTED, "request/too_large", f"at most {LIMIT} bytes", f"{LIMIT + 1}")
    assert dict(error.trailing_metadata() or ())["parlour-request-id"] == "too-large-1"
    assert await _version(target, game.game_id) == version


async def test_a_request_at_the_limit_is_read(target: str, game: SeatedGame) -> None:
    """Exactly the limit is not too large: the request is read (and refused for its overlong command id)."""
    error = await _call(target, "SubmitCommand", _sized(game, LIMIT), game.tokens[0])
    assert _reason(error) != "request/too_large", error.details()
    assert error.code() == Code.INVALID_ARGUMENT


async def test_a_stream_message_over_the_limit_is_too_large(target: str) -> None:
    """The same on a stream (BotService.Connect): its message over the limit ends it as request/too_large."""
    async with grpc.aio.insecure_channel(target) as channel:
        stream = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        hello = bot_service_pb2.Hello(bot_name="b" * (LIMIT + 16), bot_key="k")
        await stream.write(bot_service_pb2.ConnectRequest(hello=hello))
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await stream.read()
    _expect(failure.value, Code.RESOURCE_EXHAUSTED, "request/too_large", f"at most {LIMIT} bytes")
    assert "parlour-request-id" in dict(failure.value.trailing_metadata() or ())


async def test_a_request_far_beyond_the_limit_is_refused_by_grpc_itself(target: str, game: SeatedGame) -> None:
    """More than a mebibyte over the limit gRPC refuses before the server sees it: RESOURCE_EXHAUSTED
    still, but without the server's reason (documented)."""
    version = await _version(target, game.game_id)
    request = _submit(game, 0, game_pb2.Command(), command_id="x" * (LIMIT + 2 * 1024 * 1024))
    error = await _call(target, "SubmitCommand", request, game.tokens[0])
    assert error.code() == Code.RESOURCE_EXHAUSTED
    assert await _version(target, game.game_id) == version


async def test_invalid_request_fields(target: str, game: SeatedGame) -> None:
    """A missing command id, a negative page size: INVALID_ARGUMENT with a sentence; a seat outside the table
    is NOT_FOUND (which seats exist depends on the game, not on the request alone)."""
    view = await _view(target, game, 0)
    seat_nine = game_service_pb2.GetViewRequest(game_id=game.game_id, seat=9)
    _expect(
        await _call(target, "GetView", seat_nine, game.tokens[0]),
        Code.NOT_FOUND,
        "seat/not_found",
        "seats 0 to 3",
    )
    no_id = _submit(game, 0, view.legal_commands[0] if view.legal_commands else game_pb2.Command(), command_id="")
    _expect(
        await _call(target, "SubmitCommand", no_id, game.tokens[0]),
        Code.INVALID_ARGUMENT,
        "request/invalid",
        "command_id",
    )
    page = game_service_pb2.ListEventsRequest(game_id=game.game_id, page_size=-1)
    _expect(await _call(target, "ListEvents", page), Code.INVALID_ARGUMENT, "request/invalid", "page_size")
