"""The server may play a seat's default command (when its clock ran out): once, and only where due."""

from __future__ import annotations

import pytest

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
    summary = await app.games.create_game("oldmen", 3, {}, b"default")
    view = await app.games.get_view(summary.game_id, None, None)
    seat = view.pending_seats[0]
    first = await app.games.play_default(summary.game_id, seat, expected_version=view.version, command_id="t1")
    again = await app.games.play_default(summary.game_id, seat, expected_version=view.version, command_id="t1")
    assert (again.version, again.duplicate, first.duplicate) == (first.version, True, False)
    assert first.events[0].oldmen.card_played.seat == seat
    with pytest.raises(ServiceError) as stale:
        await app.games.play_default(summary.game_id, seat, expected_version=view.version, command_id="t2")
    assert stale.value.reason == "game/stale_version"
    waiting = (seat + 2) % 3
    with pytest.raises(ServiceError) as not_due:
        await app.games.play_default(summary.game_id, waiting, expected_version=first.version, command_id="t3")
    assert not_due.value.reason == "command/not_your_turn"
    assert recorder.seen == [(summary.game_id, view.version), (summary.game_id, first.version)]
