"""An upgrade across a rules version: games an earlier release stored (running and finished, fixtures made
by real play with that release's code) are loaded by today's ``parlour serve`` from Redis, continued to
their end under the rules they began with, viewed at every version, exported, and verified offline and by
the server; the exports that release made verify too."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from parlour.client import GameClient
from parlour.v1 import game_pb2, replay_service_pb2, replay_service_pb2_grpc
from service.app.replays import verify_locally
from tests.conftest import RedisTarget, delete_prefix
from tests.e2e.helpers import SeatedGame, finish
from tests.failures.replicas import serve
from tests.upgrade.fixtures import Release, earlier_release, restore

#: The rules version each game of the earlier release was played under (its first event says so).
_EARLIER_RULES = {"oldmen": "oldmen/1", "verraeter": "verraeter/1", "libertalia": "libertalia/1"}


@pytest.fixture
def release() -> Release:
    return earlier_release()


async def _verify_on_server(
    target: str, export: replay_service_pb2.GameExport
) -> replay_service_pb2.VerifyGameResponse:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = replay_service_pb2_grpc.ReplayServiceStub(channel)
        reply: replay_service_pb2.VerifyGameResponse = await stub.VerifyGame(
            replay_service_pb2.VerifyGameRequest(export=export)
        )
        return reply


async def _export(target: str, game_id: str) -> replay_service_pb2.GameExport:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = replay_service_pb2_grpc.ReplayServiceStub(channel)
        reply = await stub.ExportGame(replay_service_pb2.ExportGameRequest(game_id=game_id))
        return reply.export


async def test_the_earlier_releases_exports_verify_under_their_own_rules_offline_and_on_the_server(
    release: Release, redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """Every export the earlier release made (Libertalia's under libertalia/1, which the current rules
    replaced) verifies again, re-run under the rules version it names."""
    assert {export.rules_version for export in release.exports.values()} == set(_EARLIER_RULES.values())
    async with serve(redis_target, key_prefix, tmp_path / "server") as (_, target):
        for export in release.exports.values():
            for verdict in (verify_locally(export), await _verify_on_server(target, export)):
                assert verdict.verified, verdict.message
                assert verdict.rules_version == export.rules_version
                assert export.rules_version in verdict.message


async def test_games_stored_by_the_earlier_release_continue_and_verify_under_the_rules_they_began_with(
    release: Release, redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """Loaded from Redis as the earlier release left them: each game keeps its rules version; the running
    ones play on to their end under it (a Libertalia game of libertalia/1 would not verify under
    libertalia/2's rules); every game is viewed at every version; each export verifies offline and on the
    server, under the game's own version."""
    await restore(redis_target.url, key_prefix, release)
    try:
        # Every seat's bot plays from this one address, each asking for its view and watching after every
        # event: more calls a second than one address's default quota allows (that is not what is tested).
        unlimited = ("--rate-calls", "0")
        async with (
            serve(redis_target, key_prefix, tmp_path / "server", flags=unlimited) as (_, target),
            GameClient(target) as client,
        ):
            types = {t.name: t for t in await client.game_types()}
            assert "libertalia/1" in types["libertalia"].rules_versions
            for game in release.games:
                summary = await client.game(game.game_id)
                assert summary.rules_version == _EARLIER_RULES[game.game]
                if game.running:
                    assert summary.status == game_pb2.GAME_STATUS_RUNNING
                    tokens = [game.tokens[seat] for seat in range(len(game.tokens))]
                    await finish(client, SeatedGame(game.game_id, tokens))
                summary = await client.game(game.game_id)
                assert summary.status == game_pb2.GAME_STATUS_FINISHED
                await _view_every_version(client, game.game_id, summary.version, len(game.tokens))
                export = await _export(target, game.game_id)
                assert export.rules_version == _EARLIER_RULES[game.game]
                for verdict in (verify_locally(export), await _verify_on_server(target, export)):
                    assert verdict.verified, f"{game.game} {game.status}: {verdict.message}"
                    assert verdict.rules_version == _EARLIER_RULES[game.game]
    finally:
        await delete_prefix(redis_target.url, key_prefix)


async def _view_every_version(client: GameClient, game_id: str, last: int, seats: int) -> None:
    """The spectator's view at every version, and each seat's at every seventh (a finished game is public),
    each at the command boundary at or after it."""
    for version in range(1, last + 1):
        view = await client.view_at(game_id, version)
        assert version <= view.version <= last
        if version % 7 == 0:
            seen = await client.view_at(game_id, version, seat=version % seats)
            assert seen.version == view.version
