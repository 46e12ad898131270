"""The server may play a seat's default command (when its clock ran out): once, and only where due."""

from __future__ import annotations

import pytest

from engines.contract import AnyGame, fold
from engines.envelope import wrap_command
from engines.registry import GAMES
from parlour.v1 import game_pb2
from service.app.errors import ServiceError
from service.app.observers import GameChange
from service.bootstrap import App


class Recorder:
    """An observer that remembers what it was told."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    async def game_changed(self, change: GameChange) -> None:
        self.seen.append((change.game_id, change.version))


async def test_default_play_applies_once_and_only_at_its_version(app: App) -> None:
    """A default move at the current version is applied once; a retry is a duplicate; a stale one fails."""
    recorder = Recorder()
    app.games.add_observer(recorder)
    summary = await app.games.create_game("oldmen", 3, {}, b"default-play-seed")
    view = await app.games.get_view(summary.game_id, None, None)
    seat = view.pending_seats[0]
    first = await app.games.commands.play_default(summary.game_id, seat, expected_version=view.version, command_id="t1")
    again = await app.games.commands.play_default(summary.game_id, seat, expected_version=view.version, command_id="t1")
    assert (again.version, again.duplicate, first.duplicate) == (first.version, True, False)
    assert first.events[0].oldmen.card_played.seat == seat
    with pytest.raises(ServiceError) as stale:
        await app.games.commands.play_default(summary.game_id, seat, expected_version=view.version, command_id="t2")
    assert stale.value.reason == "game/stale_version"
    waiting = (seat + 2) % 3
    with pytest.raises(ServiceError) as not_due:
        await app.games.commands.play_default(summary.game_id, waiting, expected_version=first.version, command_id="t3")
    assert not_due.value.reason == "command/not_your_turn"
    assert recorder.seen == [(summary.game_id, view.version), (summary.game_id, first.version)]


@pytest.mark.parametrize("game", [pytest.param(g, id=g.spec.name) for g in GAMES])
async def test_a_timed_out_seat_plays_any_legal_command_not_the_first(app: App, game: AnyGame) -> None:
    """The default move tells nothing: it is drawn uniformly among the seat's legal commands (from the
    secret seed), not always the first one (the lowest card, which would say "nothing lower"); it is
    recorded as the timed-out command in the events everyone reads."""
    summary = await app.games.create_game(game.spec.name, game.spec.min_seats, {}, b"uniform-default-move")
    picks: list[tuple[int, int]] = []  # (index of the pick among the legal commands, how many there were)
    for _ in range(40):
        view = await app.games.get_view(summary.game_id, None, None)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            break
        seat = view.pending_seats[0]
        state = fold(
            game, [game.event_type.FromString(s.data) for s in await app.store.read(summary.game_id, 1, 10_000)]
        )
        legal = [wrap_command(game, c) for c in game.legal_commands(state, seat)]
        played = await app.games.commands.play_default(
            summary.game_id, seat, expected_version=view.version, command_id=f"timeout-{view.version}"
        )
        stored = (await app.store.read(summary.game_id, view.version + 1, 1))[0]
        assert stored.timed_out and all(e.timed_out for e in played.events)
        picks.append((legal.index(game_pb2.Command.FromString(stored.command)), len(legal)))
    choices = [(index, count) for index, count in picks if count > 1]
    assert len(choices) >= 10
    assert sum(1 for index, _ in choices if index > 0) >= len(choices) // 3
