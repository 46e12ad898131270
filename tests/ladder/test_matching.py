"""The ladder's matchmaking: the most uncertain bot is seated first, tables are as large as the ladder
allows, bots of like ratings meet, caps hold, and the same group is not seated again while others wait."""

from __future__ import annotations

import pytest

from service.app.ladder.matching import Candidate, match


def _bots(*specs: tuple[str, float, float]) -> list[Candidate]:
    return [Candidate(name, mu, sigma) for name, mu, sigma in specs]


def test_bots_of_like_ratings_meet() -> None:
    bots = _bots(("a1", 40, 1), ("a2", 39, 1), ("a3", 41, 1), ("b1", 10, 1), ("b2", 11, 1), ("b3", 9, 1))
    tables = match(bots, [3])
    assert sorted(sorted(t) for t in tables) == [["a1", "a2", "a3"], ["b1", "b2", "b3"]]


def test_the_most_uncertain_bot_is_seated_first_then_the_longest_waiting() -> None:
    bots = [Candidate("settled", 25, 1, waiting_since_ms=1), Candidate("new", 25, 8), Candidate("old", 25, 1)]
    assert match(bots, [2]) == [("new", "old")]  # "old" waits since 0, "settled" since 1: one of them sits out


def test_a_table_is_as_large_as_the_free_bots_fill_and_too_few_open_none() -> None:
    bots = _bots(*((f"b{i}", 25, 2) for i in range(7)))
    assert [len(t) for t in match(bots, [3, 4])] == [4, 3]
    assert match(bots[:2], [3, 4]) == []


def test_a_bot_at_its_cap_is_not_seated_and_no_bot_is_seated_twice() -> None:
    bots = [
        Candidate("busy", 25, 8, playing=2, cap=2),
        *_bots(("x", 25, 1), ("y", 25, 1)),
        Candidate("z", 25, 1, cap=3),
    ]
    tables = match(bots, [3])
    assert [sorted(t) for t in tables] == [["x", "y", "z"]]
    seated = [bot for table in match(_bots(*((f"b{i}", i, 3) for i in range(9))), [3]) for bot in table]
    assert len(seated) == len(set(seated)) == 9


def test_a_group_that_just_played_is_split_when_others_are_near() -> None:
    bots = _bots(("a", 25, 1), ("b", 25.1, 1), ("c", 26, 1), ("d", 26.1, 1))
    assert sorted(sorted(t) for t in match(bots, [2])) == [["a", "b"], ["c", "d"]]
    assert sorted(sorted(t) for t in match(bots, [2], recent=[{"a", "b"}, {"c", "d"}])) == [["a", "c"], ["b", "d"]]


def test_seat_counts_below_two_are_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="two or more seats"):
        match(_bots(("a", 25, 1)), [1])
