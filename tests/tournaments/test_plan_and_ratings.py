"""Tournament plans (round robin, Swiss, duplicate seeds) and standings/ratings folded from events."""

from __future__ import annotations

from openskill.models import PlackettLuce

from parlour.v1 import game_pb2
from parlour.v1 import tournament_service_pb2 as pb
from service.app.tournaments.plan import plan_round
from service.app.tournaments.state import fold_tournament
from service.store.port import StoredEvent


def _log(settings: pb.TournamentSettings, bots: list[str], *events: pb.TournamentEvent) -> list[StoredEvent]:
    all_events = [
        pb.TournamentEvent(created=pb.TournamentCreated(settings=settings)),
        *(pb.TournamentEvent(bot_registered=pb.BotRegistered(bot_name=b)) for b in bots),
        pb.TournamentEvent(started=pb.TournamentStarted()),
        pb.TournamentEvent(round_started=pb.RoundStarted(round=1)),
        *events,
    ]
    return [
        StoredEvent(version=i, data=e.SerializeToString(), command_id="", seat=None, recorded_at_ms=1000 + i)
        for i, e in enumerate(all_events, start=1)
    ]


def _settings(fmt: int, size: int, duplicate: bool = False) -> pb.TournamentSettings:
    return pb.TournamentSettings(
        name="t", game="oldmen", table_size=size, format=fmt, rounds=3, duplicate_seeds=duplicate
    )  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def test_round_robin_plays_every_group_once_per_round() -> None:
    state = fold_tournament("t", _log(_settings(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 3), ["a", "b", "c", "d"]))
    assert state is not None
    tables = plan_round(state, b"secret")
    assert sorted(sorted(t.seats) for t in tables) == [
        ["a", "b", "c"],
        ["a", "b", "d"],
        ["a", "c", "d"],
        ["b", "c", "d"],
    ]
    assert len({t.seed for t in tables}) == 4
    assert plan_round(state, b"secret") == tables, "the same plan after a restart"


def test_duplicate_seeds_play_each_deal_in_every_seat_rotation() -> None:
    state = fold_tournament("t", _log(_settings(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 3, True), ["a", "b", "c"]))
    assert state is not None
    tables = plan_round(state, b"secret")
    assert [t.seats for t in tables] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    assert len({t.seed for t in tables}) == 1


def test_swiss_seats_neighbours_in_the_standings_together() -> None:
    settings = _settings(pb.TOURNAMENT_FORMAT_SWISS, 2)
    finished = [
        pb.TournamentEvent(table_scheduled=pb.TableScheduled(round=1, table=0, game_id="g1", seats=["a", "b"])),
        pb.TournamentEvent(table_scheduled=pb.TableScheduled(round=1, table=1, game_id="g2", seats=["c", "d"])),
        pb.TournamentEvent(table_finished=_finished("g1", [("b", 5, 1), ("a", 1, 2)])),
        pb.TournamentEvent(table_finished=_finished("g2", [("d", 5, 1), ("c", 1, 2)])),
        pb.TournamentEvent(round_started=pb.RoundStarted(round=2)),
    ]
    state = fold_tournament("t", _log(settings, ["a", "b", "c", "d"], *finished))
    assert state is not None and state.round == 2
    pairs = [set(t.seats) for t in plan_round(state, b"s")]
    assert pairs == [{"b", "d"}, {"a", "c"}]


def _finished(game_id: str, rows: list[tuple[str, int, int]]) -> pb.TableFinished:
    results = [game_pb2.SeatResult(seat=i, score=s, rank=r, player_name=n) for i, (n, s, r) in enumerate(rows)]
    return pb.TableFinished(game_id=game_id, results=results)


def test_standings_and_ratings_follow_the_results_once_per_game() -> None:
    """Rank points (n - rank), scores and wins add up; the rating is OpenSkill Plackett-Luce's, and a
    result recorded twice counts once."""
    settings = _settings(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 3)
    result = _finished("g1", [("c", 9, 1), ("a", 4, 2), ("b", 4, 2)])
    events = [
        pb.TournamentEvent(table_scheduled=pb.TableScheduled(round=1, table=0, game_id="g1", seats=["a", "b", "c"])),
        pb.TournamentEvent(table_finished=result),
        pb.TournamentEvent(table_finished=result),
    ]
    state = fold_tournament("t", _log(settings, ["a", "b", "c"], *events))
    assert state is not None
    rows = {s.bot_name: s for s in state.standings()}
    assert {n: (r.rank_points, r.score, r.wins, r.games) for n, r in rows.items()} == {
        "c": (2, 9, 1, 1),
        "a": (1, 4, 0, 1),
        "b": (1, 4, 0, 1),
    }
    model = PlackettLuce()
    expected = model.rate([[model.rating()], [model.rating()], [model.rating()]], ranks=[1, 2, 2])
    assert abs(rows["c"].rating_mu - expected[0][0].mu) < 1e-9
    assert abs(rows["a"].rating_sigma - expected[1][0].sigma) < 1e-9
    assert state.standings()[0].bot_name == "c"
    assert rows["a"].rank == rows["b"].rank == 2


def test_folding_on_from_a_state_equals_folding_everything_and_leaves_that_state_alone() -> None:
    """The server brings a cached state up to date with the newer events only: the result is the full
    fold's, and the cached state (which readers may still hold) does not change."""
    settings = _settings(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 3)
    scheduled = pb.TableScheduled(round=1, table=0, game_id="g1", seats=["a", "b", "c"])
    log = _log(
        settings,
        ["a", "b", "c"],
        pb.TournamentEvent(table_scheduled=scheduled),
        pb.TournamentEvent(table_finished=_finished("g1", [("c", 9, 1), ("a", 4, 2), ("b", 3, 3)])),
        pb.TournamentEvent(finished=pb.TournamentFinished()),
    )
    early = fold_tournament("t", log[:-2])
    assert early is not None
    before = (early.version, early.standings(), set(early.finished), early.status)
    later = fold_tournament("t", log[-2:], early)
    whole = fold_tournament("t", log)
    assert later is not None and whole is not None
    assert (later.version, later.standings(), later.finished, later.status) == (
        whole.version,
        whole.standings(),
        whole.finished,
        whole.status,
    )
    assert (early.version, early.standings(), set(early.finished), early.status) == before
    assert early.status != whole.status and early.standings() != whole.standings()
