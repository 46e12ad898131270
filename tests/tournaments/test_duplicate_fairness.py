"""Duplicate deals are fair: the server tells no one anything about a deal from its other tables while
one of them is played.

The rotated tables of one deal share their bots, so they never run at the same time; a table of the deal
that is over is withheld (no spectator, no hand, no seed, no export, no result in the tournament) until
every table of the deal is over; then all of them become public and are recorded together.

The check runs at the moment each later rotation of a deal is created (an observer of the games, inside
the scheduler's step, so nothing can move on meanwhile): every earlier table of the same deal must be over,
each of its bots, through its own seat token, over gRPC and REST, must see there exactly what it was shown
while it ran, and a spectator must be refused.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import aiohttp
import grpc
import pytest

from engines.contract import AnyGame, fold
from engines.registry import GAMES
from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import tournament_service_pb2 as pb
from service.app.observers import GameChange
from service.app.tournaments.plan import seat_token
from service.bootstrap import App
from tests.contract.channels import TRANSPORTS, Channels, inner
from tests.rest.harness import HttpError
from tests.tournaments.helpers import (
    BOT_KEY,
    assert_standings_match,
    create_and_register,
    standings,
    start,
    tournament_events,
    verify_game,
)


@dataclass
class DealWatcher:
    """An observer of every game: groups games by their (server-side) seed and checks each later table of
    a deal when it is created."""

    app: App
    channels: Channels
    tournament_id: str = ""
    by_seed: dict[bytes, list[str]] = field(default_factory=dict)
    over: set[str] = field(default_factory=set)
    checked: int = 0
    problems: list[str] = field(default_factory=list)

    async def game_changed(self, change: GameChange) -> None:
        game_id, game, state = change.game_id, change.record.game, change.state
        if game.is_over(state):
            self.over.add(game_id)
        tables = self.by_seed.setdefault(bytes(state.seed), [])
        if game_id in tables:
            return
        tables.append(game_id)
        try:
            for earlier in tables[:-1]:
                await self._check_earlier(game, earlier)
        except Exception as error:  # reported by the test (the scheduler must not see it)
            self.problems.append(f"{game_id}: {error!r}")

    async def _check_earlier(self, game: AnyGame, game_id: str) -> None:
        assert game_id in self.over, f"table {game_id} of the same deal is still running"
        record = await self.app.games.record(game_id)
        assert record.finished and not record.public
        raw = [game.event_type.FromString(s.data) for s in await self.app.store.read(game_id, 1, 100_000)]
        state = fold(game, raw)
        seed, salt = bytes(raw[0].game_started.seed), bytes(raw[0].game_started.seed_salt)
        secret = await self.app.tournaments._store.secret(self.tournament_id)  # what the scheduler holds
        for transport in TRANSPORTS:
            for seat in range(record.config.seats):
                token = seat_token(secret, game_id, seat)
                events = await self.channels.events(transport, game_id, seat, token)
                assert [inner(game, e) for e in events] == [game.redact(e, seat) for e in raw]
                view = await self.channels.view(transport, game_id, seat, token)
                assert inner(game, view) == game.view(state, seat) and not view.results
                for message in (*events, view):
                    data = message.SerializeToString()
                    assert seed not in data and salt not in data
            for read in (self.channels.events, self.channels.view):
                with pytest.raises((grpc.aio.AioRpcError, HttpError)) as refused:
                    await read(transport, game_id, None, None)
                assert "still being played" in str(refused.value)
            with pytest.raises((grpc.aio.AioRpcError, HttpError)) as no_export:
                await self.channels.export(transport, game_id)
            assert "still being played" in str(no_export.value)
        tournament = await self.app.tournaments.load(self.tournament_id)
        assert game_id not in tournament.finished, "the tournament recorded a result of an unfinished deal"
        assert all(bot.games == 0 for bot in tournament.bots.values())
        self.checked += 1


@pytest.mark.parametrize("game", [pytest.param(g, id=g.spec.name) for g in GAMES])
async def test_the_tables_of_a_duplicate_deal_tell_its_bots_nothing(admin_app: App, game: AnyGame) -> None:
    size = game.spec.min_seats
    target = f"127.0.0.1:{admin_app.grpc_port}"
    names = [f"dup-{game.spec.name[:4]}-{i}" for i in range(size)]
    async with aiohttp.ClientSession() as session:
        channels = Channels(target, f"http://127.0.0.1:{admin_app.http_port}", session)
        watcher = DealWatcher(admin_app, channels)
        admin_app.games.add_observer(watcher)
        watcher.tournament_id = await create_and_register(
            target, names, game=game.spec.name, table_size=size, rounds=1, duplicate=True
        )
        runs = [
            asyncio.create_task(
                run_bot(target, name, BOT_KEY, lambda g, n=name: make_bot("random", g, seed=n), max_games=size)
            )
            for name in names
        ]
        await start(target, watcher.tournament_id)
        results = await asyncio.wait_for(asyncio.gather(*runs), timeout=240)
        events = await asyncio.wait_for(tournament_events(target, watcher.tournament_id), timeout=60)
        await channels.close()
    assert watcher.problems == []
    assert watcher.checked == size * (size - 1) // 2  # every earlier rotation, at each later one's start
    scheduled = [e.table_scheduled.game_id for e in events if e.HasField("table_scheduled")]
    finished = [e.table_finished.game_id for e in events if e.HasField("table_finished")]
    assert len(scheduled) == size and sorted(finished) == sorted(scheduled)
    kinds = [e.WhichOneof("kind") for e in events]
    last_scheduled = max(i for i, k in enumerate(kinds) if k == "table_scheduled")
    assert min(i for i, k in enumerate(kinds) if k == "table_finished") > last_scheduled  # recorded together
    assert {g for run in results for g in run.ended} == set(scheduled)
    for game_id in scheduled:  # released once the deal is over: public, verifiable from the revealed seed
        verdict = await verify_game(target, game_id)
        assert verdict.verified, verdict.message
    reply = await standings(target, watcher.tournament_id)
    assert reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED
    assert_standings_match(list(reply.standings), events)
