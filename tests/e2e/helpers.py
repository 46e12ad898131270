"""Helpers for end-to-end tests: raw gRPC stubs, games with claimed seats, bots."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from parlour.client import GameClient
from parlour.v1 import game_service_pb2_grpc

__all__ = ["SeatedGame", "auth", "finish", "seated_game", "stub"]


def stub(target: str) -> tuple[grpc.aio.Channel, game_service_pb2_grpc.GameServiceStub]:
    """A raw channel and GameService stub (for tests that check status codes and metadata)."""
    channel = grpc.aio.insecure_channel(target)
    return channel, game_service_pb2_grpc.GameServiceStub(channel)


def auth(token: str) -> list[tuple[str, str]]:
    """The metadata that authenticates as a seat."""
    return [("authorization", f"Bearer {token}")]


@dataclass
class SeatedGame:
    """A game with every seat claimed: its id and the seats' tokens."""

    game_id: str
    tokens: list[str]


async def seated_game(
    client: GameClient, game: str = "oldmen", seats: int = 4, seed: bytes = b"e2e", *, keep_hidden: bool = False
) -> SeatedGame:
    """Create a game (its seed: ``seed`` padded to the 16 bytes a seed needs) and claim all its seats."""
    seed = seed.ljust(16, b".")
    summary = await client.create_game(game, seats, seed=seed, keep_hidden_after_end=keep_hidden)
    tokens = []
    for seat in range(seats):
        claimed, token = await client.claim_seat(summary.game_id, f"player-{seat}", seat=seat)
        assert claimed == seat
        tokens.append(token)
    return SeatedGame(summary.game_id, tokens)


async def finish(client: GameClient, game: SeatedGame) -> None:
    """Play every seat of ``game`` with random bots to the end."""
    from parlour.bots import RandomBot
    from parlour.play import play_seat

    bots = [play_seat(client, game.game_id, seat, token, RandomBot(seat)) for seat, token in enumerate(game.tokens)]
    await asyncio.wait_for(asyncio.gather(*bots), 120)


async def refused(call: Awaitable[Any]) -> grpc.aio.AioRpcError:
    """The error a gRPC call ends with (the test fails if it succeeds)."""
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await call
    return failure.value
