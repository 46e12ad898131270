"""Revoking a seat token of a tournament bot stops that seat's play only: the bot's session goes on, and
the bot plays its other games to their end."""

from __future__ import annotations

import asyncio

import grpc

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import bot_service_pb2 as pb
from parlour.v1 import bot_service_pb2_grpc as pb_grpc
from parlour.v1 import game_pb2
from service.bootstrap import App
from tests.tournaments.helpers import BOT_KEY, create_and_register, start


async def _finished(app: App, game_id: str) -> None:
    """Return once the game is over (a spectator's watch ends after a finished game's last event)."""
    async for _ in app.games.watch(game_id, 1, None, None):
        pass


async def test_a_revoked_seat_token_ends_that_seat_and_not_the_bots_session(admin_app: App) -> None:
    """Bot "holder" has a seat in a clocked tournament's game and one in an unclocked one. Once both
    assignments have arrived, the admin revokes its clocked seat's token; that game goes on without the
    bot (its clock plays the seat) to its end, and all the while, on the same stream, the bot is sent the
    other game's turns and plays it to GameEnded."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    names = ["holder", "other-a", "other-b"]
    clocked = await create_and_register(target, names, table_size=3, move_ms=100)
    free = await create_and_register(target, names, table_size=3)
    others = [
        asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g, seed=4), max_games=2))
        for n in names[1:]
    ]
    player = make_bot("random", "oldmen", seed=5)
    assignments: dict[str, pb.Assignment] = {}
    revoked_game = ""
    pending: pb.Turn | None = None
    async with grpc.aio.insecure_channel(target) as channel:
        call = pb_grpc.BotServiceStub(channel).Connect()
        await call.write(pb.ConnectRequest(hello=pb.Hello(bot_name="holder", bot_key=BOT_KEY)))
        assert (await call.read()).HasField("welcome")
        await start(target, clocked)
        await start(target, free)
        while True:
            reply = await asyncio.wait_for(call.read(), 30)
            assert reply is not grpc.aio.EOF, "the bot's session ended"
            assert isinstance(reply, pb.ConnectResponse)
            if reply.HasField("assignment"):
                assignments[reply.assignment.tournament_id] = reply.assignment
            if reply.HasField("turn") and reply.turn.game_id == assignments.get(free, pb.Assignment()).game_id:
                pending = reply.turn
            if reply.HasField("game_ended"):
                assert reply.game_ended.game_id == assignments[free].game_id
                break
            if not revoked_game and len(assignments) == 2:
                revoked_game = assignments[clocked].game_id
                await admin_app.games.revoke_seat(revoked_game, assignments[clocked].seat)
                await asyncio.wait_for(_finished(admin_app, revoked_game), 60)  # played on by the clock
            if revoked_game and pending is not None:
                move = pb.Move(
                    game_id=pending.game_id,
                    seat=pending.seat,
                    command=player.choose(pending.view),
                    expected_version=pending.view.version,
                    command_id=f"holder-{pending.view.version}",
                )
                await call.write(pb.ConnectRequest(move=move))
                pending = None
        call.cancel()
    runs = await asyncio.wait_for(asyncio.gather(*others), 60)
    assert all(set(run.ended) == {assignments[clocked].game_id, assignments[free].game_id} for run in runs)
    summary = await admin_app.games.get_game(revoked_game)
    assert summary.status == game_pb2.GAME_STATUS_FINISHED
    assert summary.seats[assignments[clocked].seat].player_name == "holder"  # the seat stayed the bot's
