"""The engine contract shared by all games: configuration, the generic step() checks, ranking and seed commitment."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pytest

from engines.contract import GameConfig, GameSpec, OptionSpec, Result, commit_seed, fold, rank_by, step
from engines.errors import ConfigError, GameOverError, IllegalCommandError, MalformedCommandError, NotYourTurnError

SPEC = GameSpec(
    name="demo",
    title="Demo Game",
    rules_version="demo/1",
    min_seats=2,
    max_seats=5,
    options=(
        OptionSpec(name="speed", description="how fast", default="normal", allowed=("slow", "normal")),
        OptionSpec(name="rounds", description="how long", default="3", allowed=("3", "5")),
        OptionSpec(name="bots", description="bots fill seats", default="false", allowed=("false", "true")),
    ),
)


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_config_accepts_the_seat_range(seats: int) -> None:
    """Every seat count from min_seats to max_seats is accepted."""
    assert SPEC.config(seats).seats == seats


@pytest.mark.parametrize("seats", [0, 1, 6, -2])
def test_config_refuses_seats_outside_the_range(seats: int) -> None:
    """A seat count outside the range is refused with a sentence naming the range and the count."""
    with pytest.raises(ConfigError, match=f"Demo Game is played by 2 to 5 players, not {seats}"):
        SPEC.config(seats)


def test_config_fills_defaults_sorted_by_name() -> None:
    """Options not given take their defaults, and the configuration lists them sorted by name."""
    config = SPEC.config(3, {"speed": "slow"})
    assert config.options == (("bots", "false"), ("rounds", "3"), ("speed", "slow"))
    assert config.option("speed") == "slow" and config.number("rounds") == 3 and config.flag("bots") is False
    assert SPEC.config(3, {"bots": "true"}).flag("bots") is True


def test_config_refuses_an_unknown_option() -> None:
    """An option the game does not have is refused, listing the options it has."""
    with pytest.raises(ConfigError, match="Demo Game has no option 'colour'; its options are: speed, rounds, bots"):
        SPEC.config(3, {"colour": "red"})


def test_config_refuses_a_bad_value() -> None:
    """A value outside an option's allowed values is refused, listing the allowed ones."""
    with pytest.raises(ConfigError, match="option 'speed' cannot be 'fast'; allowed values: 'slow', 'normal'"):
        SPEC.config(3, {"speed": "fast"})


def test_config_of_a_game_without_options() -> None:
    """A game without options refuses any option and says it has none."""
    plain = GameSpec(name="plain", title="Plain", rules_version="plain/1", min_seats=1, max_seats=1)
    assert plain.config(1) == GameConfig(seats=1, options=())
    with pytest.raises(ConfigError, match="its options are: none"):
        plain.config(1, {"x": "y"})


def test_config_option_lookup_of_unknown_name_raises_key_error() -> None:
    """Asking a configuration for an option the game does not have is a programming error (KeyError)."""
    with pytest.raises(KeyError):
        SPEC.config(2).option("nope")


@dataclass(frozen=True)
class Counting:
    """A tiny fake game: seats take turns adding 1 to a counter until it reaches ``end``."""

    total: int
    turn: int
    seats: int = 2
    end: int = 3


class CountingGame:
    """A fake implementing just what step() and fold() use; records whether decide ran. A negative
    command is malformed."""

    spec = GameSpec(name="counting", title="Counting", rules_version="counting/1", min_seats=2, max_seats=2)

    def __init__(self) -> None:
        self.decided = 0

    def is_over(self, state: Counting) -> bool:
        return state.total >= state.end

    def pending(self, state: Counting) -> frozenset[int]:
        return frozenset() if self.is_over(state) else frozenset({state.turn})

    def check_command(self, state: Counting, command: int) -> None:
        if command < 0:
            raise MalformedCommandError("a count is never negative")

    def decide(self, state: Counting, seat: int, command: int) -> list[int]:
        self.decided += 1
        if command != 1:
            raise IllegalCommandError("you may only add 1")
        return [seat]

    def evolve(self, state: Counting | None, event: int) -> Counting:
        assert state is not None
        return Counting(total=state.total + 1, turn=1 - event)


def test_step_passes_a_pending_seats_command_to_decide() -> None:
    """For a pending seat, step returns what the game's decide returns."""
    game: Any = CountingGame()  # a fake: it implements only what step() and fold() call
    assert step(game, Counting(total=0, turn=1), 1, 1) == [1]
    assert game.decided == 1


def test_step_refuses_a_seat_that_need_not_act() -> None:
    """step raises NotYourTurnError naming the seat, without asking the game to decide."""
    game: Any = CountingGame()  # a fake: it implements only what step() and fold() call
    with pytest.raises(NotYourTurnError, match="not your turn: seat 0 need not act now"):
        step(game, Counting(total=0, turn=1), 0, 1)
    assert game.decided == 0


def test_step_refuses_every_seat_once_the_game_is_over() -> None:
    """After the end step raises GameOverError for every seat, before the turn check and before decide."""
    game: Any = CountingGame()  # a fake: it implements only what step() and fold() call
    for seat in (0, 1):
        with pytest.raises(GameOverError, match="the game is over"):
            step(game, Counting(total=3, turn=seat), seat, 1)
    assert game.decided == 0


def test_step_refuses_a_malformed_command_before_game_over_and_turn() -> None:
    """Malformed before illegal: whatever the state, a command that cannot be understood is malformed."""
    game: Any = CountingGame()  # a fake: it implements only what step() and fold() call
    for state, seat in ((Counting(total=3, turn=0), 0), (Counting(total=0, turn=1), 0), (Counting(0, 0), 0)):
        with pytest.raises(MalformedCommandError, match="never negative"):
            step(game, state, seat, -1)
    assert game.decided == 0


def test_game_over_and_not_your_turn_are_illegal_commands() -> None:
    """Transports can map both generic refusals as illegal commands."""
    assert issubclass(GameOverError, IllegalCommandError)
    assert issubclass(NotYourTurnError, IllegalCommandError)


def test_fold_applies_events_in_order() -> None:
    """fold applies each event to the state left by the previous one."""
    game: Any = CountingGame()  # a fake: it implements only what step() and fold() call
    assert fold(game, [0, 1], Counting(total=0, turn=0)) == Counting(total=2, turn=0)
    assert fold(game, [], Counting(total=1, turn=1)) == Counting(total=1, turn=1)


def test_rank_by_orders_best_first_and_shares_equal_ranks() -> None:
    """Equal keys share a rank; the next rank skips the shared places (1, 2, 2, 4)."""
    result = rank_by([0, 1, 2, 3], {0: (5, 1), 1: (7, 0), 2: (5, 1), 3: (1, 9)}, {0: 5, 1: 7, 2: 5, 3: 1})
    assert [(s.seat, s.score, s.rank) for s in result.standings] == [(1, 7, 1), (0, 5, 2), (2, 5, 2), (3, 1, 4)]
    assert result.winners == (1,)


def test_rank_by_tie_break_key_separates_equal_scores() -> None:
    """Seats with the same score but a better key rank higher."""
    result = rank_by([0, 1], {0: (4, 3), 1: (4, 7)}, {0: 4, 1: 4})
    assert [(s.seat, s.rank) for s in result.standings] == [(1, 1), (0, 2)]


def test_rank_by_shared_win() -> None:
    """Seats equal at the top all win."""
    result = rank_by([0, 1, 2], {0: 3, 1: 3, 2: 1}, {0: 3, 1: 3, 2: 1})
    assert result.winners == (0, 1)
    assert Result(standings=()).winners == ()


def test_commit_seed_is_the_documented_sha256() -> None:
    """The commitment is SHA-256 of the prefix, rules version and seed, so anyone can check it."""
    expected = hashlib.sha256(b"parlour-seed-v1\0oldmen/1\0seed").digest()
    assert commit_seed(b"seed", "oldmen/1") == expected


def test_commit_seed_depends_on_seed_and_rules_version() -> None:
    """A different seed or a different rules version gives a different commitment."""
    base = commit_seed(b"seed", "oldmen/1")
    assert commit_seed(b"seee", "oldmen/1") != base
    assert commit_seed(b"seed", "oldmen/2") != base
    assert commit_seed(b"", "oldmen/1") != commit_seed(b"\0", "oldmen/1")
