"""A ladder's duplicate deal: its next rotation is the same bots with the seats turned one further, and it
waits for its bots to be connected, up to ROTATION_WAIT_MS, then is played all the same (the deal's bots
are busy until it ends)."""

from __future__ import annotations

from typing import Any

from parlour.v1 import tournament_service_pb2 as pb
from service.app.tournaments.runner import ROTATION_WAIT_MS, Runner
from service.app.tournaments.state import TournamentState

SEATS = ("a", "b", "c")


def _ladder_after_first_rotation() -> TournamentState:
    settings = pb.TournamentSettings(
        game="oldmen", table_size=3, format=pb.TOURNAMENT_FORMAT_LADDER, duplicate_seeds=True
    )
    state = TournamentState("l", settings, 0)
    events = [pb.TournamentEvent(bot_registered=pb.BotRegistered(bot_name=name)) for name in SEATS]
    events += [
        pb.TournamentEvent(started=pb.TournamentStarted()),
        pb.TournamentEvent(table_scheduled=pb.TableScheduled(table=0, game_id="g0", seats=SEATS, deal=0, rotation=0)),
    ]
    for version, event in enumerate(events, start=2):
        event.version = version
        state.apply(event)
    return state


def _runner() -> Runner:
    unused: Any = None
    runner = Runner("l", b"secret", unused, unused, unused, unused, unused)
    runner._over.add("g0")  # the first rotation is over (withheld: not recorded until the deal ends)
    return runner


def test_the_next_rotation_turns_the_seats_once_its_bots_are_connected() -> None:
    state, runner = _ladder_after_first_rotation(), _runner()
    rotation = runner._next_rotation(state, set(SEATS), now_ms=0)
    assert rotation is not None
    assert (rotation.seats, rotation.deal, rotation.rotation, rotation.index) == (("b", "c", "a"), 0, 1, 1)


def test_the_next_rotation_waits_for_a_bot_that_left_then_is_played_all_the_same() -> None:
    state, runner = _ladder_after_first_rotation(), _runner()
    assert runner._next_rotation(state, {"a", "b"}, now_ms=1_000) is None
    assert runner._next_rotation(state, {"a", "b"}, now_ms=1_000 + ROTATION_WAIT_MS - 1) is None
    late = runner._next_rotation(state, {"a", "b"}, now_ms=1_000 + ROTATION_WAIT_MS)
    assert late is not None and late.seats == ("b", "c", "a")


def test_a_bot_back_in_time_gets_its_rotation_at_once() -> None:
    state, runner = _ladder_after_first_rotation(), _runner()
    assert runner._next_rotation(state, {"a", "b"}, now_ms=0) is None
    assert runner._next_rotation(state, set(SEATS), now_ms=10) is not None
