"""The view of a clocked game says when each pending seat's time runs out (for a client's countdown):
none before every seat is claimed, the seat's time per move plus its bank from when its turn began, the
next seat's after a move, and none in a view at an earlier version or in a game without a clock."""

from __future__ import annotations

import time

from parlour.client import GameClient
from parlour.v1 import clock_pb2
from service.bootstrap import App


async def test_the_pending_seats_deadlines_are_in_the_latest_view(app: App) -> None:
    target = f"127.0.0.1:{app.grpc_port}"
    control = clock_pb2.TimeControl(move_ms=60_000, bank_ms=30_000)
    async with GameClient(target) as client:
        created = await client.create_game("oldmen", 3, time_control=control)
        tokens = [(await client.claim_seat(created.game_id, f"p{seat}", seat))[1] for seat in range(2)]
        assert not (await client.view(created.game_id)).deadlines  # the clock waits for every seat
        tokens.append((await client.claim_seat(created.game_id, "p2", 2))[1])
        assert app.clocks is not None
        await app.clocks.start_when_ready(created.game_id)
        started_ms = time.time() * 1000
        view = await client.view(created.game_id)
        assert [d.seat for d in view.deadlines] == list(view.pending_seats)
        (due,) = view.deadlines
        assert due.bank_ms == 30_000
        assert abs(due.deadline.ToMilliseconds() - (started_ms + 90_000)) < 5_000
        seat = due.seat
        mine = await client.view(created.game_id, seat, tokens[seat])
        await client.submit(created.game_id, seat, tokens[seat], mine.legal_commands[0], expected_version=mine.version)
        after = await client.view(created.game_id)
        assert [d.seat for d in after.deadlines] == list(after.pending_seats) != [seat]
        assert not (await client.view_at(created.game_id, view.version)).deadlines


async def test_a_game_without_a_clock_has_no_deadlines(app: App) -> None:
    async with GameClient(f"127.0.0.1:{app.grpc_port}") as client:
        created = await client.create_game("oldmen", 3)
        for seat in range(3):
            await client.claim_seat(created.game_id, f"p{seat}", seat)
        assert not (await client.view(created.game_id)).deadlines
