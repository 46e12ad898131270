"""While Redis is away, calls fail fast with UNAVAILABLE and one sentence, health says NOT_SERVING; when it
is back, calls succeed at the first try, and open WatchGame streams go on with what they missed; after an
outage longer than the streams wait for Redis, they end with UNAVAILABLE and each client, resuming from its
last version, gets every event exactly once and in order.

Every call here is a raw gRPC call, never the SDK's: the SDK sends a call that failed with UNAVAILABLE
again and opens an ended stream again, which would hide a call that failed at its first try, and a stream
that ended and was opened again from one that went on. The Redis is a real server process of the test's
own, stopped and started again on the same files.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2

from parlour.client import GameClient
from parlour.v1 import game_service_pb2 as pb
from parlour.v1 import game_service_pb2_grpc
from service.bootstrap import App
from service.store.embedded import RedisProcess
from tests.e2e.helpers import SeatedGame, auth, seated_game, stub
from tests.failures.readiness import readyz, until_health

SENTENCE = "the game store is not reachable; retry"
#: The documentation (docs/operations/durability.md) says calls fail "within about a second" while Redis is
#: away; the margin is for a loaded
#: 2-core machine.
FAIL_FAST_S = 3.0
GAMES, WATCHERS = 2, 3  # watchers per game, each on a stream of its own
MOVES = 3  # per game, after Redis is back
OUTAGE_S = 4.0  # a long outage: more than the streams wait for Redis and than the SDK's call retries


def _check_unavailable(error: grpc.aio.AioRpcError) -> None:
    """``error`` is the store being away, said with the one sentence."""
    assert error.code() == grpc.StatusCode.UNAVAILABLE, error
    assert error.details() == SENTENCE
    assert ("parlour-error-reason", "store/unavailable") in tuple(error.trailing_metadata() or ())


async def _refused_fast(call: Callable[[], Awaitable[Any]]) -> None:
    """The call (made now) fails with the store being away, within FAIL_FAST_S."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await asyncio.wait_for(call(), 30)
    took = loop.time() - started
    _check_unavailable(refused.value)
    assert took < FAIL_FAST_S, f"refused after {took:.2f} s"


async def _first_event(service: game_service_pb2_grpc.GameServiceStub, game_id: str) -> pb.WatchGameResponse:
    call = service.WatchGame(pb.WatchGameRequest(game_id=game_id, from_version=1))
    try:
        return await call.read()
    finally:
        call.cancel()


async def _version(service: game_service_pb2_grpc.GameServiceStub, game_id: str) -> int:
    return int((await service.GetView(pb.GetViewRequest(game_id=game_id))).view.version)


async def _move(service: game_service_pb2_grpc.GameServiceStub, game: SeatedGame) -> int:
    """One legal move of a seat that must act, each call at its first try; the game's version after it."""
    view = (await service.GetView(pb.GetViewRequest(game_id=game.game_id))).view
    seat = view.pending_seats[0]
    request = pb.GetViewRequest(game_id=game.game_id, seat=seat)
    mine = (await service.GetView(request, metadata=auth(game.tokens[seat]))).view
    submit = pb.SubmitCommandRequest(
        game_id=game.game_id,
        seat=seat,
        command=mine.legal_commands[0],
        command_id=f"{game.game_id}-{mine.version}",
        expected_version=mine.version,
    )
    return int((await service.SubmitCommand(submit, metadata=auth(game.tokens[seat]))).version)


class Watcher:
    """A client watching a game on raw WatchGame streams: it opens one itself, and again (from its last
    version) only when told to; the versions it got over all of them, and how many it opened."""

    def __init__(self, service: game_service_pb2_grpc.GameServiceStub, game_id: str) -> None:
        self.service = service
        self.game_id = game_id
        self.versions: list[int] = []
        self.opened = 0
        self._call: Any = None

    def open(self) -> None:
        """Open a stream from the version after the last one received (the first time: from 1)."""
        start = self.versions[-1] + 1 if self.versions else 1
        self._call = self.service.WatchGame(pb.WatchGameRequest(game_id=self.game_id, from_version=start))
        self.opened += 1

    async def _next(self) -> None:
        reply = await asyncio.wait_for(self._call.read(), 30)
        assert reply is not grpc.aio.EOF, "the stream ended"
        self.versions.append(reply.event.version)

    async def until(self, version: int) -> None:
        """Read the open stream up to ``version``; an error if the stream ends first."""
        while not self.versions or self.versions[-1] < version:
            await self._next()

    async def ended(self) -> grpc.aio.AioRpcError:
        """Read the open stream until it ends with an error (keeping any event before it); the error."""
        try:
            while True:
                await self._next()
        except grpc.aio.AioRpcError as error:
            return error

    def close(self) -> None:
        if self._call is not None:
            self._call.cancel()


@contextmanager
def _closing(watchers: list[Watcher]) -> Iterator[list[Watcher]]:
    try:
        yield watchers
    finally:
        for watcher in watchers:
            watcher.close()


async def _live(
    service: game_service_pb2_grpc.GameServiceStub, games: list[SeatedGame], watchers: list[Watcher]
) -> None:
    """Open every watcher's stream and wait until each has its game's events so far: live from here."""
    for watcher in watchers:
        watcher.open()
    starts = {g.game_id: await _version(service, g.game_id) for g in games}
    await asyncio.gather(*(w.until(starts[w.game_id]) for w in watchers))


async def _games(target: str, count: int = GAMES) -> list[SeatedGame]:
    async with GameClient(target) as client:
        return [await seated_game(client, seed=f"outage-{n}".encode()) for n in range(count)]


async def test_calls_fail_fast_with_a_sentence_and_health_follows_redis(
    outage_app: App, redis_process: RedisProcess
) -> None:
    target = f"127.0.0.1:{outage_app.grpc_port}"
    [game] = await _games(target, 1)
    channel, service = stub(target)
    async with channel:
        view = pb.GetViewRequest(game_id=game.game_id)
        for _ in range(20):  # several pooled connections, each broken by the outage
            await asyncio.gather(*(service.GetView(view) for _ in range(8)))
        seat = (await service.GetView(view)).view.pending_seats[0]
        mine = pb.GetViewRequest(game_id=game.game_id, seat=seat)
        command = (await service.GetView(mine, metadata=auth(game.tokens[seat]))).view.legal_commands[0]
        submit = pb.SubmitCommandRequest(game_id=game.game_id, seat=seat, command=command, command_id="away")
        redis_process.stop()
        token = auth(game.tokens[seat])
        calls: list[Callable[[], Awaitable[Any]]] = [
            lambda: service.GetView(view),
            lambda: service.GetView(mine, metadata=token),
            lambda: service.SubmitCommand(submit, metadata=token),
            lambda: service.ListGames(pb.ListGamesRequest()),
            lambda: service.ListEvents(pb.ListEventsRequest(game_id=game.game_id)),
            lambda: service.CreateGame(pb.CreateGameRequest(game="oldmen", seats=4)),
            lambda: service.ClaimSeat(pb.ClaimSeatRequest(game_id=game.game_id, player_name="late")),
            lambda: _first_event(service, game.game_id),
        ]
        for call in calls:
            await _refused_fast(call)
        await until_health(outage_app, health_pb2.HealthCheckResponse.NOT_SERVING)
        assert await readyz(outage_app) == (503, "NOT_SERVING")

        redis_process.start()
        views = await asyncio.gather(*(service.GetView(view) for _ in range(16)))
        assert all(v.view.game_id == game.game_id for v in views)
        await _move(service, game)
        await until_health(outage_app, health_pb2.HealthCheckResponse.SERVING)
        assert await readyz(outage_app) == (200, "SERVING")


async def test_watch_streams_go_on_after_redis_returns(outage_app: App, redis_process: RedisProcess) -> None:
    """Several live streams of two games carry on across a short outage: none ends (each stream was opened
    once), and each gets every version once, in order, the moves made after Redis returned included."""
    target = f"127.0.0.1:{outage_app.grpc_port}"
    games = await _games(target)
    channel, service = stub(target)
    async with channel:
        with _closing([Watcher(service, g.game_id) for g in games for _ in range(WATCHERS)]) as watchers:
            await _live(service, games, watchers)
            redis_process.stop()
            await _refused_fast(lambda: service.GetView(pb.GetViewRequest(game_id=games[0].game_id)))
            redis_process.start()
            last = {g.game_id: [await _move(service, g) for _ in range(MOVES)][-1] for g in games}
            await asyncio.gather(*(w.until(last[w.game_id]) for w in watchers))
    for watcher in watchers:
        assert watcher.opened == 1
        assert watcher.versions == list(range(1, last[watcher.game_id] + 1))


@pytest.mark.parametrize("watch_outage_seconds", [0.5])
async def test_watch_streams_end_after_a_long_outage_and_resume_exactly_once(
    outage_app: App, redis_process: RedisProcess
) -> None:
    """An outage longer than the streams wait for Redis (0.5 s here, 15 s by default) ends every live
    stream with UNAVAILABLE and the sentence; each client resumes from its last version once Redis is
    back and, over both of its streams, gets every version once, in order."""
    target = f"127.0.0.1:{outage_app.grpc_port}"
    games = await _games(target)
    channel, service = stub(target)
    async with channel:
        with _closing([Watcher(service, g.game_id) for g in games for _ in range(WATCHERS)]) as watchers:
            await _live(service, games, watchers)
            redis_process.stop()
            for ended in await asyncio.gather(*(w.ended() for w in watchers)):
                _check_unavailable(ended)
            redis_process.start()
            for watcher in watchers:
                watcher.open()
            last = {g.game_id: [await _move(service, g) for _ in range(MOVES)][-1] for g in games}
            await asyncio.gather(*(w.until(last[w.game_id]) for w in watchers))
    for watcher in watchers:
        assert watcher.opened == 2
        assert watcher.versions == list(range(1, last[watcher.game_id] + 1))


@pytest.mark.parametrize("watch_outage_seconds", [0.5])
async def test_the_sdks_watch_rides_out_an_outage_that_ends_its_stream(
    outage_app: App, redis_process: RedisProcess
) -> None:
    """``GameClient.watch`` opens its stream again for as long as the server says UNAVAILABLE (here an
    outage of several seconds, which ends the server's streams after 0.5 s and refuses new ones until
    Redis is back), and then gets every version once, in order."""
    target = f"127.0.0.1:{outage_app.grpc_port}"
    (game,) = await _games(target, count=1)
    channel, service = stub(target)
    async with channel, GameClient(target) as client:
        start = await _version(service, game.game_id)
        seen: list[int] = []
        caught_up = asyncio.Event()

        async def follow() -> None:
            async for event in client.watch(game.game_id):
                seen.append(event.version)
                if event.version >= start:
                    caught_up.set()

        watching = asyncio.create_task(follow())
        try:
            await asyncio.wait_for(caught_up.wait(), 30)
            redis_process.stop()
            await asyncio.sleep(OUTAGE_S)  # the outage itself: longer than the SDK's retries of other calls
            assert not watching.done(), watching
            redis_process.start()
            last = [await _move(service, game) for _ in range(MOVES)][-1]
            for _ in range(600):
                if seen and seen[-1] >= last:
                    break
                await asyncio.sleep(0.05)
        finally:
            watching.cancel()
    assert seen == list(range(1, last + 1))
