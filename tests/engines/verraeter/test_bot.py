"""The greedy Verräter bot: it only plays legal commands and beats random bots."""

from __future__ import annotations

from engines.contract import fold, step
from engines.envelope import unwrap_command, view_envelope
from engines.verraeter import VERRAETER
from parlour.bots import make_bot
from parlour.bots.verraeter import VerraeterGreedyBot


def _greedy_share(seats: int, seed: str, greedy_seat: int) -> float:
    bots = [make_bot("greedy" if s == greedy_seat else "random", "verraeter", f"{seed}-{s}") for s in range(seats)]
    state = fold(VERRAETER, VERRAETER.start(VERRAETER.spec.config(seats), seed.encode()))
    while not VERRAETER.is_over(state):
        seat = min(VERRAETER.pending(state))
        view = view_envelope(VERRAETER, state, seat)
        command = bots[seat].choose(view)
        assert command in list(view.legal_commands)
        state = fold(VERRAETER, step(VERRAETER, state, seat, unwrap_command(VERRAETER, command)), state)
    result = VERRAETER.result(state)
    assert result is not None
    return 1 / len(result.winners) if greedy_seat in result.winners else 0.0


def test_greedy_is_registered() -> None:
    """make_bot("greedy", "verraeter") builds the greedy bot."""
    assert isinstance(make_bot("greedy", "verraeter", 1), VerraeterGreedyBot)


def test_greedy_bot_wins_more_than_its_fair_share() -> None:
    """Against three random bots the greedy bot wins clearly more than a quarter of 4-player games."""
    games = 24
    share = sum(_greedy_share(4, f"bot-test-{g}", g % 4) for g in range(games)) / games
    assert share > 0.35
