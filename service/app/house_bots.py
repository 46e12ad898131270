"""House bots: seats the server plays itself, each with a built-in strategy chosen at CreateGame.

:class:`HouseBots` is a game observer. When a game changed through this process is waiting for one of its
house seats, it starts a task that builds the seat's view, lets the strategy choose one of the legal
commands (in a worker thread, so the event loop never waits on a bot) and submits it with the server's
authority at the version it was chosen for, with the command id ``house:<game>:<seat>:<version>``: a
retry or a second server doing the same appends nothing twice, and a choice overtaken by another seat's
move is dropped (that move is reported in turn, and the seat chooses again).

A server that stopped while a house seat had to act leaves that seat waiting; every server process calls
:meth:`HouseBots.resume_all` when it starts, which looks at every running game with house seats once
(several processes doing so at once append each move once, by its command id).
"""

from __future__ import annotations

import asyncio

import structlog

from engines.envelope import view_envelope
from parlour.v1 import game_pb2
from service.app.errors import ServiceError
from service.app.games import Games
from service.app.house_strategies import house_bot
from service.app.observers import GameChange

__all__ = ["HouseBots", "house_command_id"]

log = structlog.get_logger("parlour.house_bots")

_OVERTAKEN = {"game/stale_version", "command/not_your_turn", "game/over"}


def house_command_id(game_id: str, seat: int, version: int) -> str:
    """The command id of the house bot's move for ``seat`` at ``version``."""
    return f"house:{game_id}:{seat}:{version}"


class HouseBots:
    """Plays every house seat of the games that change through this process."""

    def __init__(self, games: Games) -> None:
        """Play through ``games``; it tells this of its games' changes once added among its observers
        (``games.add_observer``), after the clock keeper, so that a house seat's clock is set first."""
        self.games = games
        self._inflight: dict[tuple[str, int, int], asyncio.Task[None]] = {}

    async def game_changed(self, change: GameChange) -> None:
        """Start a move for each house seat that must act now (and is not moving already)."""
        house, game, state = change.record.house_bots, change.game, change.state
        if not house or game.is_over(state):
            return
        for seat in game.pending(state):
            key = (change.game_id, seat, change.version)
            if seat not in house or key in self._inflight:
                continue
            view = view_envelope(game, state, seat, game_id=change.game_id, version=change.version)
            task = asyncio.create_task(self._move(change.game_id, seat, house[seat], view))
            self._inflight[key] = task
            task.add_done_callback(lambda _, key=key: self._inflight.pop(key, None))  # type: ignore[misc]  # a default argument binds the key per task; mypy flags the lambda's default

    async def resume(self, game_id: str) -> None:
        """Make the game's house seats that must act now move (after a restart, for instance)."""
        await self.games.tell_observers(game_id)

    async def resume_all(self) -> int:
        """Resume every running game that has house seats (see :meth:`resume`); the number of such games."""
        resumed, token = 0, ""
        while True:
            games, token = await self.games.list_games("", game_pb2.GAME_STATUS_RUNNING, 500, token)
            for summary in games:
                if any(seat.house_bot for seat in summary.seats):
                    await self.resume(summary.game_id)
                    resumed += 1
            if not token:
                return resumed

    async def idle(self) -> None:
        """Wait until no move started so far is still running (for tests and shutdown)."""
        while self._inflight:
            await asyncio.wait(list(self._inflight.values()))

    def close(self) -> None:
        """Cancel the moves in flight."""
        for task in list(self._inflight.values()):
            task.cancel()

    async def _move(self, game_id: str, seat: int, strategy: str, view: game_pb2.GameView) -> None:
        version = view.version
        try:
            bot = house_bot(strategy, view.game, seed=house_command_id(game_id, seat, version))
            command = await asyncio.to_thread(bot.choose, view)
            await self.games.commands.play_for_house(
                game_id, seat, command, expected_version=version, command_id=house_command_id(game_id, seat, version)
            )
        except ServiceError as error:
            if error.reason not in _OVERTAKEN:
                log.warning("house bot move refused", game_id=game_id, seat=seat, reason=error.reason)
        except Exception as error:  # a bot's bug must not end the server's other work
            log.warning("house bot failed", game_id=game_id, seat=seat, error=repr(error))
