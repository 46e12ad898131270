"""A tournament's seats belong to the tournament from the moment its game exists: an anonymous client that
tries to claim them first (at the very moment the game is created, before the scheduler does anything
else) is refused, and the assigned bots play the game."""

from __future__ import annotations

import asyncio

import grpc

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import game_service_pb2 as game_pb
from parlour.v1 import game_service_pb2_grpc as game_grpc
from service.app.observers import GameChange
from service.bootstrap import App
from tests.tournaments.helpers import BOT_KEY, create_and_register, start, tournament_events


class _Hijacker:
    """Told of every game the server creates, it claims each of its seats over gRPC at once, with no key."""

    def __init__(self, target: str) -> None:
        self._target = target
        self.seen: set[str] = set()
        self.outcomes: list[tuple[grpc.StatusCode, str]] = []

    async def game_changed(self, change: GameChange) -> None:
        game_id = change.game_id
        if game_id in self.seen:
            return
        self.seen.add(game_id)
        async with grpc.aio.insecure_channel(self._target) as channel:
            stub = game_grpc.GameServiceStub(channel)
            for seat in range(3):
                try:
                    await stub.ClaimSeat(game_pb.ClaimSeatRequest(game_id=game_id, seat=seat, player_name="thief"))
                    self.outcomes.append((grpc.StatusCode.OK, ""))
                except grpc.aio.AioRpcError as error:
                    self.outcomes.append((error.code(), error.details() or ""))
            try:
                await stub.ClaimSeat(game_pb.ClaimSeatRequest(game_id=game_id, player_name="thief"))
                self.outcomes.append((grpc.StatusCode.OK, ""))
            except grpc.aio.AioRpcError as error:
                self.outcomes.append((error.code(), error.details() or ""))


async def test_an_anonymous_client_cannot_claim_a_tournament_seat_before_the_scheduler(admin_app: App) -> None:
    """Every claim of a tournament game's seat, made the moment the game exists, is refused as taken;
    the game's seats carry the registered bots' names and the bots play it to the end."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    hijacker = _Hijacker(target)
    admin_app.games.add_observer(hijacker)
    names = ["bot-a", "bot-b", "bot-c"]
    tid = await create_and_register(target, names, table_size=3, rounds=1)
    runs = [
        asyncio.create_task(run_bot(target, name, BOT_KEY, lambda game: make_bot("random", game, seed=3), max_games=1))
        for name in names
    ]
    await start(target, tid)
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=120)
    assert len(hijacker.seen) == 1
    assert len(hijacker.outcomes) == 4
    assert all(code == grpc.StatusCode.FAILED_PRECONDITION for code, _ in hijacker.outcomes), hijacker.outcomes
    assert all("taken" in text for _, text in hijacker.outcomes), hijacker.outcomes
    (game_id,) = hijacker.seen
    async with grpc.aio.insecure_channel(target) as channel:
        summary = (await game_grpc.GameServiceStub(channel).GetGame(game_pb.GetGameRequest(game_id=game_id))).game
    assert sorted(s.player_name for s in summary.seats) == names
    assert all(list(run.ended) == [game_id] and run.moves > 0 for run in results)
    events = await asyncio.wait_for(tournament_events(target, tid), timeout=60)  # ends with the tournament
    (finished,) = [e.table_finished for e in events if e.HasField("table_finished")]
    assert finished.game_id == game_id
    assert sorted(r.player_name for r in finished.results) == names
