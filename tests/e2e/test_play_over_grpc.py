"""End to end over real sockets: a server on port 0 with real Redis; bots and watchers are gRPC clients."""

from __future__ import annotations

import asyncio

from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from engines.registry import get_game
from parlour.bots import RandomBot
from parlour.client import GameClient
from parlour.play import play_seat
from parlour.v1 import game_pb2
from service.bootstrap import App
from tests.e2e.helpers import seated_game, stub


async def _play_all(client: GameClient, game_id: str, tokens: list[str]) -> list[game_pb2.GameView]:
    return await asyncio.gather(
        *(play_seat(client, game_id, seat, token, RandomBot(seat)) for seat, token in enumerate(tokens))
    )


async def test_four_bots_play_a_whole_game(target: str) -> None:
    """Four bots, each with its own seat token, play Old Men of the Forest to the end over gRPC."""
    async with GameClient(target) as client:
        game = await seated_game(client)
        views = await asyncio.wait_for(_play_all(client, game.game_id, game.tokens), 60)
        summary = await client.game(game.game_id)
    assert all(v.status == game_pb2.GAME_STATUS_FINISHED for v in views)
    assert summary.status == game_pb2.GAME_STATUS_FINISHED
    assert sorted(r.seat for r in summary.results) == [0, 1, 2, 3]
    assert min(r.rank for r in summary.results) == 1
    assert {r.player_name for r in summary.results} == {f"player-{s}" for s in range(4)}


async def test_a_finished_game_replays_to_the_same_result(target: str, app: App) -> None:
    """Folding the stored log of a game played over the network gives the result the server reported."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"replay")
        await asyncio.wait_for(_play_all(client, game.game_id, game.tokens), 60)
        summary = await client.game(game.game_id)
    engine = get_game("oldmen")
    assert engine is not None
    stored = await app.store.read(game.game_id, 1, 10_000)
    state = None
    for event in stored:
        state = engine.evolve(state, engine.event_type.FromString(event.data))
    result = engine.result(state)
    assert result is not None
    assert [(s.seat, s.score, s.rank) for s in result.standings] == [(r.seat, r.score, r.rank) for r in summary.results]
    assert stored[-1].final and not any(e.final for e in stored[:-1])


async def test_a_spectator_sees_every_public_event_and_no_hidden_one(target: str, app: App) -> None:
    """The spectator stream is the whole log, redacted: no hand, no deck order, no seed before the end (the
    final event, sent once the game is over, comes whole: the game's policy makes it public)."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"spectator")
        spectator = asyncio.create_task(_collect(client.watch(game.game_id, 1)))
        await asyncio.wait_for(_play_all(client, game.game_id, game.tokens), 60)
        watched = await asyncio.wait_for(spectator, 30)
    engine = get_game("oldmen")
    assert engine is not None
    stored = await app.store.read(game.game_id, 1, 10_000)
    assert [e.version for e in watched] == [e.version for e in stored]
    for seen, raw in zip(watched, stored, strict=True):
        expected = engine.redact(engine.event_type.FromString(raw.data), None, finished=raw.final)
        assert seen.oldmen == expected
        kind = seen.oldmen.WhichOneof("kind")
        if kind == "hand_dealt":
            assert not seen.oldmen.hand_dealt.cards and seen.oldmen.hand_dealt.count == 10
        if kind == "orangutan_deck_shuffled":
            assert not seen.oldmen.orangutan_deck_shuffled.order
        if kind == "game_started":
            assert not seen.oldmen.game_started.seed and seen.oldmen.game_started.seed_commitment


async def test_a_seat_sees_its_own_hand_only(target: str) -> None:
    """A seat's watch stream carries its own dealt cards and only the count of the others'."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"own-hand")
        events = await _collect(client.watch(game.game_id, 1, seat=2, token=game.tokens[2]), stop_at=8)
    dealt = {
        e.oldmen.hand_dealt.seat: len(e.oldmen.hand_dealt.cards) for e in events if e.oldmen.HasField("hand_dealt")
    }
    assert dealt == {0: 0, 1: 0, 2: 10, 3: 0}


async def test_a_killed_watcher_resumes_with_no_gap_and_no_duplicate(target: str) -> None:
    """A watcher cut off mid-game and restarted from its last version + 1 sees every event exactly once."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"resume")
        playing = asyncio.create_task(_play_all(client, game.game_id, game.tokens))
        first = await _collect(client.watch(game.game_id, 1), stop_at=40)
        await _moved_past(client, game.game_id, first[-1].version + 10)  # the game goes on while nobody watches
        rest = await asyncio.wait_for(_collect(client.watch(game.game_id, first[-1].version + 1)), 60)
        await asyncio.wait_for(playing, 60)
        summary = await client.game(game.game_id)
    versions = [e.version for e in first + rest]
    assert versions == list(range(1, summary.version + 1))


async def test_health_and_reflection_are_served(target: str) -> None:
    """gRPC health reports SERVING and reflection lists the game service (so generic tools work)."""
    channel, _ = stub(target)
    async with channel:
        health = health_pb2_grpc.HealthStub(channel)
        reply = await health.Check(health_pb2.HealthCheckRequest(service="parlour.v1.GameService"))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        services = []
        async for response in reflection.ServerReflectionInfo(iter([request])):
            services = [s.name for s in response.list_services_response.service]
    assert "parlour.v1.GameService" in services


async def test_health_watch_streams_the_status(target: str) -> None:
    """Health's Watch (what load balancers and orchestrators follow) streams SERVING through every
    interceptor of the server, not an error."""
    channel, _ = stub(target)
    async with channel:
        call = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""))
        try:
            first = await asyncio.wait_for(call.read(), 10)
        finally:
            call.cancel()
    assert first.status == health_pb2.HealthCheckResponse.SERVING


async def test_game_types_are_listed(target: str) -> None:
    """Clients can discover the games, their seat ranges and options."""
    async with GameClient(target) as client:
        types = {t.name: t for t in await client.game_types()}
    oldmen = types["oldmen"]
    assert (oldmen.min_seats, oldmen.max_seats) == (3, 4)
    assert [(o.name, list(o.allowed_values)) for o in oldmen.options] == [("match_deals", ["1", "2"])]


async def test_games_are_listed_by_status(target: str) -> None:
    """ListGames shows running and finished games, newest first, with players and scores."""
    async with GameClient(target) as client:
        done = await seated_game(client, seed=b"done")
        await _play_all(client, done.game_id, done.tokens)
        running = await seated_game(client, seed=b"running")
        everything = await client.list_games()
        finished = await client.list_games(status=game_pb2.GAME_STATUS_FINISHED)
    assert [g.game_id for g in everything.games][:2] == [running.game_id, done.game_id]
    assert [g.game_id for g in finished.games] == [done.game_id]
    assert len(finished.games[0].results) == 4


async def _moved_past(client: GameClient, game_id: str, version: int) -> None:
    """Return once the game's log is at ``version`` or further, or the game is over."""
    for _ in range(1200):
        summary = await client.game(game_id)
        if summary.version >= version or summary.status == game_pb2.GAME_STATUS_FINISHED:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the game did not reach version {version}")


async def _collect(stream, stop_at: int | None = None) -> list[game_pb2.Event]:  # type: ignore[no-untyped-def]  # any stream of WatchGame replies
    out: list[game_pb2.Event] = []
    async for event in stream:
        out.append(event)
        if stop_at is not None and len(out) >= stop_at:
            break
    await stream.aclose()
    return out
