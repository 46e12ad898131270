"""Playing a seat with a bot: watch the game, and on each of the seat's turns send the bot's command."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass

from parlour.bots.base import Bot
from parlour.client import GameClient, ParlourError
from parlour.v1 import game_pb2

__all__ = ["play_seat"]

# A turn can be lost to a race (the game moved on): look again instead of failing.
_RETRYABLE = {"game/stale_version", "command/not_your_turn"}


@dataclass(frozen=True)
class _Seat:
    client: GameClient
    game_id: str
    seat: int
    token: str

    async def view(self) -> game_pb2.GameView:
        return await self.client.view(self.game_id, self.seat, self.token)

    async def send(self, command: game_pb2.Command, version: int) -> None:
        """Submit on the version the bot saw, with a fresh command id; a lost race is not an error."""
        try:
            await self.client.submit(
                self.game_id, self.seat, self.token, command, expected_version=version, command_id=uuid.uuid4().hex
            )
        except ParlourError as error:
            if error.reason not in _RETRYABLE:
                raise


async def play_seat(
    client: GameClient, game_id: str, seat: int, token: str, bot: Bot, *, wait_seconds: float = 2.0
) -> game_pb2.GameView:
    """Play ``seat`` with ``bot`` until the game is over; returns the seat's final view.

    Each command carries the view's version as ``expected_version`` and a fresh command id, so a command
    is never applied to a state the bot did not see, and a retry is never applied twice. Between turns the
    seat watches the game's stream; it looks at the view again when an event arrives, and at the latest
    after ``wait_seconds``, so a lost stream costs a moment, never the game.
    """
    player = _Seat(client, game_id, seat, token)
    view = await player.view()
    while view.status != game_pb2.GAME_STATUS_FINISHED:
        if view.legal_commands:
            await player.send(bot.choose(view), view.version)
        else:
            await _wait_for_news(player, view.version, wait_seconds)
        view = await player.view()
    return view


async def _wait_for_news(player: _Seat, version: int, seconds: float) -> None:
    """Return when an event after ``version`` arrives, or after ``seconds``."""
    stream = player.client.watch(player.game_id, version + 1, player.seat, player.token)
    assert isinstance(stream, AsyncGenerator)
    try:
        async with asyncio.timeout(seconds):
            async for _event in stream:
                return
    except TimeoutError:
        return
    finally:
        await stream.aclose()
