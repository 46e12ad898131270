"""Rules versions side by side on a server: which versions it lists and gives new games, a game played and
verified under an older version, a version the server does not hold refused in a sentence, an operator's
pin, and a replica of an older release that meets a game of a newer version (a rolling upgrade)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest

from engines.registry import REGISTRY, Registry
from parlour.client import GameClient, ParlourError
from parlour.v1 import game_pb2
from service.bootstrap import build_app
from tests.conftest import RedisTarget, server_settings
from tests.e2e.helpers import SeatedGame, finish
from tests.tournaments.helpers import verify_game

#: The registry of a replica of an earlier release: every version but the newest Libertalia.
_WITHOUT_NEWEST = Registry(game for game in REGISTRY.all() if game.spec.rules_version != "libertalia/2")


@pytest.fixture
async def client(target: str) -> AsyncIterator[GameClient]:
    async with GameClient(target) as connected:
        yield connected


@asynccontextmanager
async def _server(
    redis_target: RedisTarget, key_prefix: str, data_dir: Path, registry: Registry = REGISTRY, **settings: object
) -> AsyncIterator[GameClient]:
    app = build_app(server_settings(redis_target, key_prefix, data_dir, **settings), registry)
    await app.start()
    try:
        async with GameClient(f"127.0.0.1:{app.grpc_port}") as client:
            yield client
    finally:
        await app.stop(grace=0)


async def _seated(client: GameClient, game: str, seats: int, rules_version: str = "") -> SeatedGame:
    summary = await client.create_game(game, seats, seed=b"rules-versions-seed", rules_version=rules_version)
    tokens = [(await client.claim_seat(summary.game_id, f"p{seat}", seat))[1] for seat in range(seats)]
    return SeatedGame(summary.game_id, tokens)


async def test_each_game_lists_its_current_version_and_every_version_it_plays(client: GameClient) -> None:
    types = {t.name: t for t in await client.game_types()}
    assert types["libertalia"].rules_version == "libertalia/2"
    assert list(types["libertalia"].rules_versions) == ["libertalia/1", "libertalia/2"]
    for name, game_type in types.items():
        assert list(game_type.rules_versions) == [g.spec.rules_version for g in REGISTRY.versions(name)]
        assert game_type.rules_version == game_type.rules_versions[-1]


async def test_a_game_created_under_an_older_version_is_played_and_verified_under_it(
    client: GameClient, target: str
) -> None:
    game = await _seated(client, "libertalia", 3, "libertalia/1")
    assert (await client.game(game.game_id)).rules_version == "libertalia/1"
    await finish(client, game)
    verdict = await verify_game(target, game.game_id)
    assert verdict.verified, verdict.message
    assert verdict.rules_version == "libertalia/1"


async def test_a_rules_version_the_server_does_not_hold_is_refused_in_a_sentence(client: GameClient) -> None:
    with pytest.raises(ParlourError) as refused:
        await client.create_game("libertalia", 3, rules_version="libertalia/9")
    assert refused.value.reason == "game/rules_unavailable"
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE
    assert "'libertalia/9'" in str(refused.value) and "libertalia/1, libertalia/2" in str(refused.value)


async def test_an_operator_pin_gives_new_games_the_pinned_version(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    pins = (("libertalia", "libertalia/1"),)
    async with _server(redis_target, key_prefix, tmp_path, rules_pins=pins) as client:
        types = {t.name: t for t in await client.game_types()}
        assert types["libertalia"].rules_version == "libertalia/1"
        summary = await client.create_game("libertalia", 2)
        assert summary.rules_version == "libertalia/1"
        newest = await client.create_game("libertalia", 2, rules_version="libertalia/2")
        assert newest.rules_version == "libertalia/2"


async def test_a_replica_without_a_games_rules_refuses_it_and_never_plays_it_by_other_rules(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """In a rolling upgrade an older replica meets games of a version it does not have: it lists and
    summarizes them, and refuses every call that needs their rules with game/rules_unavailable, naming the
    version; the upgraded replica plays both its own games and those the older one made."""
    async with (
        _server(redis_target, key_prefix, tmp_path / "new") as new,
        _server(redis_target, key_prefix, tmp_path / "old", _WITHOUT_NEWEST) as old,
    ):
        newer = await _seated(new, "libertalia", 3)
        assert (await old.game(newer.game_id)).rules_version == "libertalia/2"
        listed = await old.list_games(game="libertalia")
        assert newer.game_id in [g.game_id for g in listed.games]
        view = await new.view(newer.game_id, 0, newer.tokens[0])
        for call in (
            old.view(newer.game_id),
            old.view_at(newer.game_id, 1),
            old.submit(newer.game_id, 0, newer.tokens[0], view.legal_commands[0], expected_version=view.version),
        ):
            with pytest.raises(ParlourError) as refused:
                await call
            assert refused.value.reason == "game/rules_unavailable"
            assert "libertalia/2" in str(refused.value)
        assert (await new.view(newer.game_id)).version == view.version  # nothing was played by other rules

        older = await _seated(old, "libertalia", 3)  # the older replica's current version
        assert (await new.game(older.game_id)).rules_version == "libertalia/1"
        await finish(new, older)
        assert (await new.game(older.game_id)).status == game_pb2.GAME_STATUS_FINISHED
