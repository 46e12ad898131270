"""``--replica-acks 1`` on a single Redis with a replica: a command is acknowledged only once the replica
holds it; when the replica is away the client gets UNAVAILABLE with a sentence, and the retry with the
same command id, once the replica is back, is answered without applying the command twice."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
import redis.asyncio

from parlour.client import GameClient, ParlourError
from service.bootstrap import build_app
from service.store.embedded import RedisProcess
from service.store.failures import StoreUnavailableError
from service.store.keys import Keys
from service.store.tournaments import RedisTournaments
from tests.conftest import RedisTarget, server_settings
from tests.e2e.helpers import seated_game
from tests.replicated import free_port, wait_for_replica


async def test_a_command_waits_for_the_replica_and_its_retry_is_safe(key_prefix: str, tmp_path: Path) -> None:
    master = RedisProcess(tmp_path / "master", port=free_port())
    master.start()
    replica = RedisProcess(tmp_path / "replica", config={"replicaof": f"127.0.0.1 {master.port}"})
    replica.start()
    settings = server_settings(RedisTarget("own", master.url), key_prefix, tmp_path / "server", replica_acks=1)
    app = build_app(settings)
    await app.start()
    try:
        wait_for_replica(master, f"{key_prefix}:synced")
        async with GameClient(f"127.0.0.1:{app.grpc_port}") as client:
            game = await seated_game(client)
            view = await client.view(game.game_id)
            seat = view.pending_seats[0]
            mine = await client.view(game.game_id, seat, game.tokens[seat])
            replica.stop()
            with pytest.raises(ParlourError) as refused:
                await client.submit(game.game_id, seat, game.tokens[seat], mine.legal_commands[0], command_id="once")
            assert refused.value.code == grpc.StatusCode.UNAVAILABLE
            assert refused.value.reason == "store/unavailable"
            assert "same command id" in refused.value.message
            replica.start()
            wait_for_replica(master, f"{key_prefix}:synced")
            reply = await client.submit(
                game.game_id, seat, game.tokens[seat], mine.legal_commands[0], command_id="once"
            )
            assert reply.duplicate
            events = [e async for e in client.events(game.game_id)]
            assert [e.version for e in events] == list(range(1, reply.version + 1))
            assert sum(1 for e in events if e.command_id == "once") == reply.version - view.version
    finally:
        await app.stop(grace=0)
        replica.kill()
        master.kill()


async def test_a_tournament_step_waits_for_the_replica_too(key_prefix: str, tmp_path: Path) -> None:
    """A tournament's log (registrations, scheduling) is acknowledged under the same rule as a game's."""
    master = RedisProcess(tmp_path / "master", port=free_port())
    master.start()
    replica = RedisProcess(tmp_path / "replica", config={"replicaof": f"127.0.0.1 {master.port}"})
    replica.start()
    client = redis.asyncio.Redis(unix_socket_path=master.socket_path)
    tournaments = RedisTournaments(client, Keys(key_prefix), replica_acks=1, replica_ack_timeout_ms=300)
    try:
        wait_for_replica(master, f"{key_prefix}:synced")
        await tournaments.create("t1", b"secret", b"first", now_ms=1)
        replica.stop()
        with pytest.raises(StoreUnavailableError, match="same command id"):
            await tournaments.append("t1", [b"second"], expected_version=1, now_ms=2, event_id="step")
        replica.start()
        wait_for_replica(master, f"{key_prefix}:synced")
        again = await tournaments.append("t1", [b"second"], expected_version=1, now_ms=2, event_id="step")
        assert again.duplicate
        assert [e.data for e in await tournaments.read("t1")] == [b"first", b"second"]
    finally:
        await tournaments.close()
        await client.aclose()
        replica.kill()
        master.kill()
