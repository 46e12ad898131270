"""The Redis master of the most games' slots is killed (SIGKILL) while they are being played, with
``--replica-acks 1``: after the cluster fails over (their slots have another master), every command a
client got an acknowledgement for is in the log, the games go on and finish, and every game verifies
(nothing forked). The cluster is this test's own (3 masters, 3 replicas). While the promoted
replica has no replica of its own, its commands are refused as not replicated (and retried with the same
command id); the killed node is started again and rejoins as its replica, as an operator would do."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from parlour.client import GameClient, ParlourError
from parlour.v1 import game_pb2
from service.store.keys import Keys
from tests.cluster import Cluster, start_cluster
from tests.conftest import CLUSTER_SCHEME, RedisTarget
from tests.e2e.helpers import SeatedGame, seated_game
from tests.failures.replicas import serve
from tests.tournaments.helpers import verify_game

GAMES = 8


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[Cluster]:
    cluster = start_cluster(tmp_path / "cluster", start_port=40000)
    yield cluster
    cluster.stop()


async def _submit(client: GameClient, game: SeatedGame, acknowledged: set[str]) -> bool:
    """One move (sent again with the same command id while the store fails over); False at the end."""
    async with asyncio.timeout(60):
        while True:
            try:
                view = await client.view(game.game_id)
                if not view.pending_seats:
                    return False
                seat = view.pending_seats[0]
                mine = await client.view(game.game_id, seat, game.tokens[seat])
                command_id = f"{game.game_id}-{mine.version}"
                await client.submit(
                    game.game_id, seat, game.tokens[seat], mine.legal_commands[0], command_id=command_id
                )
                acknowledged.add(command_id)
                return True
            except ParlourError as error:
                # A view read from the master just before it died can show a command that was never
                # acknowledged and is lost with it (the log the promoted replica holds is shorter): a
                # move decided on that view is refused (not this seat's turn, or not this version) and
                # decided again on a fresh view. Only acknowledged commands must survive.
                if error.reason not in ("store/unavailable", "command/not_your_turn", "game/stale_version"):
                    raise
                await asyncio.sleep(0.1)


async def test_acknowledged_commands_survive_a_master_failover(
    own_cluster: Cluster, key_prefix: str, tmp_path: Path
) -> None:
    target = RedisTarget("cluster", CLUSTER_SCHEME + own_cluster.seeds)
    async with (
        serve(target, key_prefix, tmp_path / "a") as (_, first),
        serve(target, key_prefix, tmp_path / "b") as (_, second),
        GameClient(f"{first},{second}") as client,
    ):
        games = [await seated_game(client, "oldmen", 4, seed=bytes([i]) * 16) for i in range(GAMES)]
        acknowledged: set[str] = set()
        moved = asyncio.Event()

        async def play(game: SeatedGame) -> None:
            while await _submit(client, game, acknowledged):
                if len(acknowledged) >= 3 * GAMES:
                    moved.set()

        players = [asyncio.create_task(play(game)) for game in games]
        await asyncio.wait_for(moved.wait(), 120)
        # The victim is the master of the most games' slots (each game's keys share its log key's slot).
        keys = Keys(key_prefix)
        masters = {game.game_id: own_cluster.master_of(keys.log(game.game_id)) for game in games}
        victim = max(set(masters.values()), key=list(masters.values()).count)
        hit = [game for game in games if masters[game.game_id] is victim]
        before = {}
        for game in hit:
            view = await client.view(game.game_id)
            assert view.status != game_pb2.GAME_STATUS_FINISHED  # still being played
            before[game.game_id] = view.version
        victim.kill()  # under load: its games are being played
        await asyncio.to_thread(own_cluster.wait_failover)
        assert all(own_cluster.master_of(keys.log(game.game_id)) is not victim for game in hit)
        victim.start()  # back as the replica of its old replica, so commands can be acknowledged again
        await asyncio.wait_for(asyncio.gather(*players), 300)
        logged: set[str] = set()
        for game in games:
            events = [e async for e in client.events(game.game_id)]
            logged |= {e.command_id for e in events if e.command_id}
            verdict = await verify_game(second, game.game_id)
            assert verdict.verified, verdict.message
            if game in hit:  # went on after the failover, to its end
                assert events[-1].version > before[game.game_id]
                assert (await client.game(game.game_id)).status == game_pb2.GAME_STATUS_FINISHED
        assert acknowledged <= logged, sorted(acknowledged - logged)
