"""Hostile clients over gRPC: bytes that are not a message, names far too long, and a client over its
quotas are each refused with their status code and a sentence saying what to do."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from parlour.v1 import clock_pb2
from parlour.v1 import game_service_pb2 as pb
from parlour.v1 import tournament_service_pb2 as tour_pb
from parlour.v1 import tournament_service_pb2_grpc as tour_grpc
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import refused, stub

Code = grpc.StatusCode


async def _raw(target: str, method: str, data: bytes) -> grpc.aio.AioRpcError:
    """Send ``data`` as the request bytes of ``method`` of GameService."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.unary_unary(f"/parlour.v1.GameService/{method}", request_serializer=None)
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await call(data)
    return failure.value


@pytest.mark.parametrize(
    ("method", "data"),
    [
        ("CreateGame", b"\xff\xff\xff\xff"),  # not the protobuf wire format
        ("CreateGame", b"\x0a\x02\xff\xfe"),  # field `game` holding bytes that are not UTF-8
        ("ClaimSeat", b"\x12"),  # a field cut short
    ],
)
async def test_undecodable_request_bytes_are_invalid_argument_with_a_sentence(
    target: str, method: str, data: bytes
) -> None:
    """Not UNKNOWN with a Python exception's name: INVALID_ARGUMENT naming the message type expected."""
    error = await _raw(target, method, data)
    assert error.code() == Code.INVALID_ARGUMENT, error.details()
    assert f"not a valid parlour.v1.{method}Request message" in (error.details() or "")


@pytest.mark.parametrize("data", [b"\xff\xff\xff\xff", b"\x0a\x02\xff\xfe"])
async def test_undecodable_bytes_opening_a_stream_are_invalid_argument_with_a_sentence(
    target: str, data: bytes
) -> None:
    """A server stream (WatchGame) whose request bytes do not decode ends at once with INVALID_ARGUMENT
    naming the message type expected, as a unary call does."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.unary_stream("/parlour.v1.GameService/WatchGame", request_serializer=None)(data)
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await call.read()
    error = failure.value
    assert error.code() == Code.INVALID_ARGUMENT, error.details()
    assert "not a valid parlour.v1.WatchGameRequest message" in (error.details() or "")
    assert "send a serialized parlour.v1.WatchGameRequest" in (error.details() or "")


_ADMIN_KEY = "hostile-admin-key-0123456789"


@pytest.mark.parametrize("strict_app", [{"admin_key": _ADMIN_KEY}], indirect=True)
async def test_a_ten_thousand_character_name_is_refused_with_a_short_sentence(strict_app: App) -> None:
    """A game name, a player name, and a tournament's name and game name of 10,000 characters each get
    INVALID_ARGUMENT with a sentence (not the name echoed back past the client's metadata limit). The
    server has an admin key, so the tournament is refused for its settings, not for the caller."""
    huge = "x" * 10_000
    channel, games = stub(f"127.0.0.1:{strict_app.grpc_port}")
    async with channel:
        error = await refused(games.CreateGame(pb.CreateGameRequest(game=huge, seats=3)))
        assert error.code() == Code.INVALID_ARGUMENT and "plays no game" in (error.details() or "")
        assert len(error.details() or "") < 1000
        made = await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3))
        error = await refused(games.ClaimSeat(pb.ClaimSeatRequest(game_id=made.game.game_id, player_name=huge)))
        assert error.code() == Code.INVALID_ARGUMENT and "player_name must be 1 to 64" in (error.details() or "")
        error = await refused(games.ListGames(pb.ListGamesRequest(game=huge)))
        assert error.code() == Code.INVALID_ARGUMENT and len(error.details() or "") < 1000
        error = await refused(games.ListGames(pb.ListGamesRequest(page_token="²")))
        assert error.code() == Code.INVALID_ARGUMENT and "page_token" in (error.details() or "")
        admin = [("x-parlour-admin-key", _ADMIN_KEY)]
        tournaments = tour_grpc.TournamentServiceStub(channel)
        fine = {"name": "t", "game": "oldmen", "table_size": 3, "rounds": 1, "format": tour_pb.TOURNAMENT_FORMAT_SWISS}
        for changed, sentence in (({"game": huge}, "plays no game"), ({"name": huge}, "name must be 1 to 64")):
            settings = tour_pb.TournamentSettings(**{**fine, **changed})  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
            error = await refused(
                tournaments.CreateTournament(tour_pb.CreateTournamentRequest(settings=settings), metadata=admin)
            )
            assert error.code() == Code.INVALID_ARGUMENT, error.details()
            assert sentence in (error.details() or "") and len(error.details() or "") < 1000
        settings = tour_pb.TournamentSettings(**fine)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        made = await tournaments.CreateTournament(tour_pb.CreateTournamentRequest(settings=settings), metadata=admin)
        assert made.tournament.tournament_id  # the same settings with short names are taken


@pytest.fixture
async def strict_app(
    request: pytest.FixtureRequest, redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> AsyncIterator[App]:
    """A server with the small quotas the test names (``@pytest.mark.parametrize("strict_app", ...)``)."""
    server = build_app(server_settings(redis_target, key_prefix, tmp_path, **request.param))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


def _exhausted(error: grpc.aio.AioRpcError, flag: str) -> None:
    assert error.code() == Code.RESOURCE_EXHAUSTED, error.details()
    assert flag in (error.details() or ""), error.details()


@pytest.mark.parametrize("strict_app", [{"rate_create_games": "3/minute"}], indirect=True)
async def test_creating_games_beyond_the_rate_is_resource_exhausted_naming_the_limit(strict_app: App) -> None:
    """The fourth game within a minute is refused with the limit, its flag and when to retry."""
    channel, games = stub(f"127.0.0.1:{strict_app.grpc_port}")
    async with channel:
        for _ in range(3):
            await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3))
        error = await refused(games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3)))
        _exhausted(error, "--rate-create-games")
        assert "3 per minute" in (error.details() or "") and "retry in" in (error.details() or "")
        reason = dict(error.trailing_metadata() or ()).get("parlour-error-reason")
        assert reason == "limit/rate"
        listed = await games.ListGames(pb.ListGamesRequest())
        assert len(listed.games) == 3  # the refused call created nothing


@pytest.mark.parametrize("strict_app", [{"rate_claim_seats": "2/minute"}], indirect=True)
async def test_claiming_seats_beyond_the_rate_is_resource_exhausted(strict_app: App) -> None:
    """The third seat claimed within a minute is refused; the seat stays free."""
    channel, games = stub(f"127.0.0.1:{strict_app.grpc_port}")
    async with channel:
        made = await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3))
        game_id = made.game.game_id
        for n in range(2):
            await games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, player_name=f"p{n}"))
        error = await refused(games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, player_name="p2")))
        _exhausted(error, "--rate-claim-seats")
        summary = (await games.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert [s.claimed for s in summary.seats] == [True, True, False]


@pytest.mark.parametrize("strict_app", [{"rate_calls": "5/minute"}], indirect=True)
async def test_calls_of_any_kind_beyond_the_rate_are_resource_exhausted(strict_app: App) -> None:
    """The sixth call of a minute, whatever it is, is refused."""
    channel, games = stub(f"127.0.0.1:{strict_app.grpc_port}")
    async with channel:
        for _ in range(5):
            await games.ListGames(pb.ListGamesRequest())
        _exhausted(await refused(games.ListGameTypes(pb.ListGameTypesRequest())), "--rate-calls")


async def _open_watch(games: Any, game_id: str) -> Any:
    """A WatchGame stream that the server has started (its first event has arrived)."""
    call = games.WatchGame(pb.WatchGameRequest(game_id=game_id))
    await call.read()
    return call


@pytest.mark.parametrize(
    ("strict_app", "flag"),
    [
        ({"max_streams_per_client": 2}, "--max-streams-per-client"),
        ({"max_streams": 2, "max_streams_per_client": 0}, "--max-streams"),
    ],
    indirect=["strict_app"],
)
async def test_streams_beyond_the_maximum_are_resource_exhausted(strict_app: App, flag: str) -> None:
    """With two streams open, a third is refused with the limit that applies; the two keep working."""
    channel, games = stub(f"127.0.0.1:{strict_app.grpc_port}")
    async with channel:
        made = await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=3))
        game_id = made.game.game_id
        held = [await _open_watch(games, game_id) for _ in range(2)]
        third = games.WatchGame(pb.WatchGameRequest(game_id=game_id))
        error = await refused(third.read())
        _exhausted(error, flag)
        await games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, player_name="p"))
        assert [(await call.read()).event.version for call in held] == [2, 2]  # the two go on
        for call in held:
            call.cancel()


@pytest.mark.parametrize("strict_app", [{"min_move_ms": 1000, "max_move_ms": 600_000}], indirect=True)
async def test_clocks_outside_the_servers_range_are_refused(strict_app: App) -> None:
    """A 1 ms clock (a timeout storm) and a clock longer than the maximum are INVALID_ARGUMENT naming the
    range and its flags; a clock inside it is accepted."""
    channel, games = stub(f"127.0.0.1:{strict_app.grpc_port}")
    async with channel:
        for move_ms in (1, 999, 600_001):
            request = pb.CreateGameRequest(game="oldmen", seats=3, time_control=clock_pb2.TimeControl(move_ms=move_ms))
            error = await refused(games.CreateGame(request))
            assert error.code() == Code.INVALID_ARGUMENT
            assert "move_ms must be 1000 to 600000 on this server (--min-move-ms" in (error.details() or "")
        request = pb.CreateGameRequest(game="oldmen", seats=3, time_control=clock_pb2.TimeControl(move_ms=1000))
        assert (await games.CreateGame(request)).game.time_control.move_ms == 1000
