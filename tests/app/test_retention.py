"""The retention run: a running game nobody moved in for the configured time ends as abandoned (its
seats played to the end by the server, its watchers told) or, when its seats were never all claimed, is
deleted; a finished game expires after its time, exported first when an export directory is configured;
its seat tokens go with it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import grpc
import pytest

from parlour.client import GameClient
from parlour.v1 import game_pb2
from parlour.v1 import game_service_pb2 as pb
from service.app.retention import Retention, RetentionSettings
from service.bootstrap import App
from tests.e2e.helpers import SeatedGame, auth, finish, seated_game, stub

HOUR_MS = 3_600_000


def _retention(app: App, hours_later: float, export_dir: Path) -> Retention:
    """A retention run as it would be ``hours_later`` from now: abandoned after 1 h, expired after 3 h."""
    settings = RetentionSettings(abandon_after_hours=1, finished_ttl_hours=3, export_dir=export_dir)
    return Retention(app.games, app.replays, lambda: int(time.time() * 1000 + hours_later * HOUR_MS), settings)


async def test_abandoned_games_end_and_finished_games_expire_with_an_export(app: App, tmp_path: Path) -> None:
    target = f"127.0.0.1:{app.grpc_port}"
    exports = tmp_path / "exports"
    async with GameClient(target) as client:
        idle = await seated_game(client, seats=3, seed=b"idle")
        played = await seated_game(client, seats=3, seed=b"played")
        await finish(client, played)
        untouched = _retention(app, 0.5, exports)  # too early for anything
        assert (await untouched.run_once()).abandoned == []
        channel, games = stub(target)
        async with channel:
            watch = games.WatchGame(pb.WatchGameRequest(game_id=idle.game_id, from_version=1))
            watched = asyncio.ensure_future(_all(watch))
            report = await _retention(app, 2, exports).run_once()
            assert report.abandoned == [idle.game_id] and report.expired == []
            summary = await client.game(idle.game_id)
            assert summary.status == game_pb2.GAME_STATUS_FINISHED and summary.abandoned
            events = await asyncio.wait_for(watched, 60)  # the watcher's stream ends with the game
            assert events[-1].version == summary.version
            assert any(e.timed_out for e in events)
            assert not (await client.game(played.game_id)).abandoned
            report = await _retention(app, 4, exports).run_once()
            assert sorted(report.expired) == sorted([idle.game_id, played.game_id])
            for game_id in (idle.game_id, played.game_id):
                exported = json.loads((exports / f"{game_id}.parlour.json").read_text())
                assert exported["game"] == "oldmen" and exported["seed"]
                with pytest.raises(grpc.aio.AioRpcError) as gone:
                    await games.GetGame(pb.GetGameRequest(game_id=game_id))
                assert gone.value.code() == grpc.StatusCode.NOT_FOUND
            with pytest.raises(grpc.aio.AioRpcError) as gone:
                request = pb.GetViewRequest(game_id=played.game_id, seat=0)
                await games.GetView(request, metadata=auth(played.tokens[0]))
            assert gone.value.code() == grpc.StatusCode.NOT_FOUND  # the seat token went with its game
            assert (await games.ListGames(pb.ListGamesRequest())).games == []


async def _all(watch: object) -> list[game_pb2.Event]:
    return [reply.event async for reply in watch]  # type: ignore[attr-defined]  # the watch yields WatchGame replies; its declared type is the generic stream


async def test_abandoned_games_never_fully_seated_are_deleted_not_played_out(app: App, tmp_path: Path) -> None:
    """In one run: a game nobody claimed a seat of and one whose seats were only partly claimed are
    deleted (nothing of them is left in Redis, the claimed seat's token goes with its game, and no claim can
    bring them back); a fully seated game idle as long is still played out to its end."""
    target = f"127.0.0.1:{app.grpc_port}"
    async with GameClient(target) as client:
        never = (await client.create_game("oldmen", 3, seed=b"never".ljust(16, b"."))).game_id
        partly = (await client.create_game("oldmen", 3, seed=b"partly".ljust(16, b"."))).game_id
        _, token = await client.claim_seat(partly, "early", seat=1)
        seated = await seated_game(client, seats=3, seed=b"seated")
        report = await _retention(app, 2, tmp_path / "exports").run_once()
        assert report.abandoned == [seated.game_id] and report.expired == []
        assert sorted(report.unstarted) == sorted([never, partly])
        summary = await client.game(seated.game_id)
        assert summary.status == game_pb2.GAME_STATUS_FINISHED and summary.abandoned
    channel, games = stub(target)
    async with channel:
        for game_id in (never, partly):
            assert await _keys_of(app, game_id) == []
            for call in (
                games.GetGame(pb.GetGameRequest(game_id=game_id)),
                games.ClaimSeat(pb.ClaimSeatRequest(game_id=game_id, player_name="late")),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as gone:
                    await call
                assert gone.value.code() == grpc.StatusCode.NOT_FOUND
            assert await _keys_of(app, game_id) == []
        with pytest.raises(grpc.aio.AioRpcError) as gone:
            await games.GetView(pb.GetViewRequest(game_id=partly, seat=1), metadata=auth(token))
        assert gone.value.code() == grpc.StatusCode.NOT_FOUND
        listed = await games.ListGames(pb.ListGamesRequest())
        assert [g.game_id for g in listed.games] == [seated.game_id]
    assert (await _retention(app, 2, tmp_path / "exports").run_once()).unstarted == []


async def _keys_of(app: App, game_id: str) -> list[bytes]:
    """Every Redis key of the game (they share its hash tag)."""
    pattern = f"{app.settings.key_prefix}:{{g:{game_id}}}:*"
    return [key async for key in app.redis.client.scan_iter(match=pattern)]


async def test_a_withheld_table_waits_for_its_deal_then_expires_with_its_export(app: App, tmp_path: Path) -> None:
    """A duplicate deal's table that is over is not deleted while its deal is played, however long that
    takes (its tournament could not record it, and it has no export yet); once released it expires like
    any finished game, exported first."""
    target = f"127.0.0.1:{app.grpc_port}"
    exports = tmp_path / "exports"
    created = await app.games.create_game("oldmen", 3, {}, b"withheld-table".ljust(16, b"."), held=True)
    tokens = [(await app.games.claim_seat(created.game_id, seat, f"p{seat}"))[1] for seat in range(3)]
    async with GameClient(target) as client:
        await finish(client, SeatedGame(created.game_id, tokens))
        assert (await client.game(created.game_id)).withheld
        assert (await _retention(app, 4, exports).run_once()).expired == []
        assert (await client.game(created.game_id)).withheld
        await app.games.release(created.game_id)
        assert (await _retention(app, 4, exports).run_once()).expired == [created.game_id]
    assert json.loads((exports / f"{created.game_id}.parlour.json").read_text())["seed"]
