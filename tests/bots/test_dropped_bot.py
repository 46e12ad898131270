"""A bot dropped for its timeouts stops receiving turns for that game: the server plays its seat, and
the bot is told only when the game ends."""

from __future__ import annotations

import asyncio

import grpc

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import bot_service_pb2 as pb
from parlour.v1 import bot_service_pb2_grpc as pb_grpc
from service.bootstrap import App
from tests.tournaments.helpers import BOT_KEY, create_and_register, start


async def _silent(target: str, name: str, ready: asyncio.Event) -> list[pb.ConnectResponse]:
    """Connect as ``name``, never move, and return what the server sent until the game ended."""
    received: list[pb.ConnectResponse] = []
    async with grpc.aio.insecure_channel(target) as channel:
        call = pb_grpc.BotServiceStub(channel).Connect()
        await call.write(pb.ConnectRequest(hello=pb.Hello(bot_name=name, bot_key=BOT_KEY)))
        while True:
            reply = await call.read()
            assert reply is not grpc.aio.EOF
            received.append(reply)
            if reply.HasField("welcome"):
                ready.set()
            if reply.HasField("game_ended"):
                call.cancel()
                return received


async def test_a_dropped_bot_gets_no_more_turns_but_hears_the_end(admin_app: App) -> None:
    """With 100 ms per move and a drop after two timeouts, a bot that never answers gets at most a turn
    or two past its drops (a turn may be on its way as the drop is recorded), not one per move of the whole
    game; the game is played to the end for it and it receives GameEnded."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    tid = await create_and_register(target, ["silent", "busy-a", "busy-b"], table_size=3, move_ms=100)
    ready = asyncio.Event()
    silent = asyncio.create_task(_silent(target, "silent", ready))
    await asyncio.wait_for(ready.wait(), 30)
    busy = [
        asyncio.create_task(run_bot(target, n, BOT_KEY, lambda g: make_bot("random", g, seed=2), max_games=1))
        for n in ("busy-a", "busy-b")
    ]
    await start(target, tid)
    received = await asyncio.wait_for(silent, 120)
    runs = await asyncio.wait_for(asyncio.gather(*busy), 120)
    turns = [r.turn for r in received if r.HasField("turn")]
    game_id = received[-1].game_ended.game_id
    assert all(turn.game_id == game_id for turn in turns)
    assert 2 <= len(turns) <= 3, [t.view.version for t in turns]
    assert all(game_id in run.ended for run in runs)
    assert sum(run.moves for run in runs) > 3 * len(turns)  # the game went on well past the drops
