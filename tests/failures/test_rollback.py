"""Redis loses acknowledged writes (it restarts from an older copy of its files, as after a host crash
with ``appendfsync everysec`` or an asynchronous failover). A server whose cache holds the lost events
must not decide on them: every game goes on, on that server and on a fresh one, and verifies."""

from __future__ import annotations

import shutil
from pathlib import Path

from engines.registry import GAMES
from parlour.client import GameClient
from parlour.v1 import tournament_service_pb2 as tpb
from service.bootstrap import build_app
from service.store.embedded import RedisProcess
from tests.conftest import RedisTarget, server_settings
from tests.e2e.helpers import SeatedGame, seated_game
from tests.tournaments.helpers import verify_game

#: Every registered game, at four seats where it can be played by four.
_TABLES = [(g.spec.name, min(max(4, g.spec.min_seats), g.spec.max_seats)) for g in GAMES]


async def _move(client: GameClient, game: SeatedGame) -> bool:
    """Play the first legal command of a pending seat; False once the game is over."""
    view = await client.view(game.game_id)
    if not view.pending_seats:
        return False
    seat = view.pending_seats[0]
    mine = await client.view(game.game_id, seat, game.tokens[seat])
    await client.submit(game.game_id, seat, game.tokens[seat], mine.legal_commands[0], expected_version=mine.version)
    return True


async def test_games_go_on_and_verify_after_redis_loses_acknowledged_writes(
    redis_process: RedisProcess, key_prefix: str, tmp_path: Path
) -> None:
    target = RedisTarget("own", redis_process.url)
    stale = build_app(server_settings(target, key_prefix, tmp_path / "a", snapshot_every=7))
    fresh = build_app(server_settings(target, key_prefix, tmp_path / "b", snapshot_every=7))
    await stale.start()
    await fresh.start()
    try:
        async with GameClient(f"127.0.0.1:{stale.grpc_port}") as a, GameClient(f"127.0.0.1:{fresh.grpc_port}") as b:
            games = [await seated_game(a, name, seats, seed=name.encode().ljust(16, b"-")) for name, seats in _TABLES]
            for game in games:
                for _ in range(3):
                    await _move(a, game)
            redis_process.stop()
            backup = tmp_path / "backup"
            shutil.copytree(redis_process.data_dir, backup)
            redis_process.start()
            for game in games:  # acknowledged, cached by the stale server, then lost
                for _ in range(5):
                    await _move(a, game)
            redis_process.stop()
            shutil.rmtree(redis_process.data_dir)
            shutil.copytree(backup, redis_process.data_dir)
            redis_process.start()
            for game in games:  # another server plays on from the older log first
                for _ in range(2):
                    await _move(b, game)
            for game in games:  # then both take turns to the end
                turn = 0
                while await _move((a, b)[turn % 2], game):
                    turn += 1
            for game in games:
                verdict = await verify_game(f"127.0.0.1:{fresh.grpc_port}", game.game_id)
                assert verdict.verified, verdict.message
    finally:
        await stale.stop(grace=0)
        await fresh.stop(grace=0)


async def test_a_tournament_log_that_redis_rolled_back_is_not_forked_by_a_cached_state(
    redis_process: RedisProcess, key_prefix: str, tmp_path: Path
) -> None:
    """A server that cached tournament events Redis then lost, while another server appended other
    events at their versions, must not append on its cached history: the append is refused, the cache is
    dropped, and the next load shows the log as it is, so the scheduler can go on from it."""
    target = RedisTarget("own", redis_process.url)
    stale = build_app(server_settings(target, key_prefix, tmp_path / "a"))
    fresh = build_app(server_settings(target, key_prefix, tmp_path / "b"))
    await stale.start()
    await fresh.start()
    a, b = stale.tournaments, fresh.tournaments
    assert a is not None and b is not None
    try:
        settings = tpb.TournamentSettings(
            name="t", game="oldmen", table_size=3, format=tpb.TOURNAMENT_FORMAT_SWISS, rounds=1
        )
        tournament_id = (await a.create(settings)).tournament_id
        redis_process.stop()
        backup = tmp_path / "backup"
        shutil.copytree(redis_process.data_dir, backup)
        redis_process.start()
        assert await a.append(tournament_id, _registered("lost"), expected_version=1)
        assert set((await a.load(tournament_id)).bots) == {"lost"}  # cached at version 2
        redis_process.stop()
        shutil.rmtree(redis_process.data_dir)
        shutil.copytree(backup, redis_process.data_dir)
        redis_process.start()
        assert await b.append(tournament_id, _registered("theirs"), expected_version=1)
        assert not await a.append(tournament_id, _registered("mine"), expected_version=2)
        assert set((await a.load(tournament_id)).bots) == {"theirs"}
        assert await a.append(tournament_id, _registered("mine"), expected_version=2)
        for server in (a, b):
            assert set((await server.load(tournament_id)).bots) == {"theirs", "mine"}
    finally:
        await stale.stop(grace=0)
        await fresh.stop(grace=0)


def _registered(name: str) -> tpb.TournamentEvent:
    return tpb.TournamentEvent(bot_registered=tpb.BotRegistered(bot_name=name))
