"""Seating a table is safe to repeat: a scheduler that crashed after claiming a seat but before giving it
to its bot gives it on resuming, and a bot never gets the same seat twice."""

from __future__ import annotations

from parlour.v1 import tournament_service_pb2 as pb
from service.app.tournaments.plan import seat_token
from service.app.tournaments.runner import Runner
from service.app.tournaments.state import Table, TournamentState
from service.bootstrap import App

SECRET = b"tournament-secret"


async def _never(*_: object) -> object:
    raise AssertionError("seating neither reads nor writes the tournament log")


async def test_a_seat_claimed_before_a_crash_is_given_to_its_bot_once(admin_app: App) -> None:
    assert admin_app.bots is not None and admin_app.clocks is not None
    summary = await admin_app.games.create_game("oldmen", 3, {}, b"resume-seating-seed")
    game_id = summary.game_id
    table = Table(round=1, index=0, game_id=game_id, seats=("bot-x", "bot-y", "bot-z"))
    state = TournamentState("t1", pb.TournamentSettings(game="oldmen", table_size=3), created_ms=0)
    # The crash: seat 1 was claimed with its derived token, and nobody was told.
    await admin_app.games.claim_seat(game_id, 1, "bot-y", token=seat_token(SECRET, game_id, 1))
    runner = Runner("t1", SECRET, admin_app.games, admin_app.bots, admin_app.clocks, _never, _never)  # type: ignore[arg-type]  # stand-ins for the runner's log callbacks
    await runner._seat(state, table)
    await runner._seat(state, table)  # a second resume changes nothing
    for seat, bot in enumerate(table.seats):
        key = "bot-key-0123456789abcdef"
        await admin_app.bots.authenticate(bot, key, register=True, by_admin=True)
        assignments = await admin_app.bots.assignments(bot, key)
        assert [(a.game_id, a.seat) for a in assignments] == [(game_id, seat)], bot
        view = await admin_app.games.get_view(game_id, seat, assignments[0].seat_token)
        assert view.seat == seat
