"""The reference bots are found from their modules: every game bot module is named like a registered game
and found, and every strategy that plays a registered game plays it to its end with legal commands."""

from __future__ import annotations

from pathlib import Path

import pytest

import parlour.bots
from engines.contract import AnyGame, fold, step
from engines.envelope import unwrap_command, view_envelope
from engines.registry import GAMES, game_names
from parlour.bots import STRATEGIES, RandomBot, make_bot


def test_each_bot_module_is_found_and_names_a_registered_game() -> None:
    """Every ``parlour/bots/<game>.py`` (the files, not the discovery) gives a strategy for a registered
    game; the random bot plays every game."""
    files = {p.stem for p in Path(parlour.bots.__file__).parent.glob("*.py")} - {"__init__", "base"}
    found = {game for by_game in STRATEGIES.values() for game in by_game} - {"*"}
    assert files and found == {f for f in files if not f.startswith("_")}
    assert found <= set(game_names())
    assert STRATEGIES["random"] == {"*": RandomBot}


def _cases() -> list[tuple[AnyGame, str]]:
    return [
        (game, strategy)
        for strategy, by_game in sorted(STRATEGIES.items())
        for game in GAMES
        if game.spec.name in by_game or "*" in by_game
    ]


@pytest.mark.parametrize(("game", "strategy"), _cases(), ids=[f"{g.spec.name}-{s}" for g, s in _cases()])
def test_each_strategy_plays_each_of_its_games_to_the_end(game: AnyGame, strategy: str) -> None:
    config = game.spec.config(game.spec.min_seats)
    state = fold(game, game.start(config, b"strategies-are-found-16"))
    bots = {seat: make_bot(strategy, game.spec.name, seed=seat) for seat in range(config.seats)}
    for _ in range(10_000):
        if game.is_over(state):
            return
        seat = min(game.pending(state))
        view = view_envelope(game, state, seat)
        command = bots[seat].choose(view)
        assert command in list(view.legal_commands)
        state = fold(game, step(game, state, seat, unwrap_command(game, command)), state)
    raise AssertionError("the game did not end")
