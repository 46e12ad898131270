"""/metrics after real games: each counter moves by exactly what was done (commands by game and result,
their latency histogram, games by status, open streams, tail reads, Redis calls and errors, clock timeouts),
and every call carries a request id back to the client and into the log."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import aiohttp
import grpc
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from parlour.bots import make_bot
from parlour.client import GameClient, ParlourError
from parlour.runner import run_bot
from parlour.v1 import game_pb2, game_service_pb2
from service.app.time_control import TimeControl
from service.bootstrap import App, build_app
from service.logs import configure_logging
from service.store.clocks import RedisClocks
from service.store.connection import MeasuredRedis
from service.store.embedded import RedisProcess
from service.store.keys import Keys
from tests.clocks.test_timeouts import finished_view
from tests.conftest import RedisTarget, delete_prefix, server_settings
from tests.e2e.helpers import finish, seated_game, stub
from tests.failures.replicas import free_port
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY, create_and_register, start, tournament_events

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(url: str) -> Samples:
    """Every sample of the page at ``url``, by name and labels."""
    async with aiohttp.ClientSession() as session, session.get(url) as reply:
        assert reply.status == 200
        assert reply.headers["Content-Type"].startswith("text/plain")
        text = await reply.text()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


async def _play_to_the_end(client: GameClient, game_id: str, tokens: list[str]) -> int:
    """Play the first legal command of whoever must act until the game ends; the number of commands."""
    count = 0
    while True:
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return count
        seat = view.pending_seats[0]
        own = await client.view(game_id, seat, tokens[seat])
        await client.submit(game_id, seat, tokens[seat], own.legal_commands[0], expected_version=own.version)
        count += 1


async def test_counters_move_by_what_a_game_did(app: App, target: str) -> None:
    url = f"http://127.0.0.1:{app.http_port}/metrics"
    before = await scrape(url)
    async with GameClient(target) as client:
        game = await seated_game(client, "oldmen", 3, seed=b"metrics")
        seat = (await client.view(game.game_id)).pending_seats[0]
        own = await client.view(game.game_id, seat, game.tokens[seat])
        first = own.legal_commands[0]
        await client.submit(game.game_id, seat, game.tokens[seat], first, command_id="m-1")
        await client.submit(game.game_id, seat, game.tokens[seat], first, command_id="m-1")  # a retry
        with pytest.raises(ParlourError):  # the version the command was chosen at is gone
            await client.submit(game.game_id, seat, game.tokens[seat], first, expected_version=own.version)
        pending = (await client.view(game.game_id)).pending_seats
        other = next(s for s in range(3) if s not in pending)
        with pytest.raises(ParlourError) as refused:  # a seat that need not act
            await client.submit(game.game_id, other, game.tokens[other], first)
        watch = client.watch(game.game_id, 1)
        await anext(watch)  # the stream is open on the server
        during = await scrape(url)
        played = await _play_to_the_end(client, game.game_id, game.tokens)
        async for _ in watch:  # the rest of the log, to its last event
            pass
    after = await scrape(url)

    assert moved(before, after, "parlour_commands_total", game="oldmen", result="applied") == 1 + played
    assert moved(before, after, "parlour_commands_total", game="oldmen", result="duplicate") == 1
    assert moved(before, after, "parlour_commands_total", game="oldmen", result="game/stale_version") == 1
    assert moved(before, after, "parlour_commands_total", game="oldmen", result=refused.value.reason) == 1
    assert moved(before, after, "parlour_command_seconds_count", game="oldmen") == 4 + played
    assert value(after, "parlour_games", status="finished") == 1  # this test's keys hold one game
    assert value(after, "parlour_games", status="running") == 0
    assert moved(before, during, "parlour_open_streams", rpc="WatchGame", transport="grpc") == 1
    assert moved(before, during, "parlour_watchers") >= 1
    assert moved(before, after, "parlour_open_streams", rpc="WatchGame", transport="grpc") == 0
    tail_reads = moved(during, after, "parlour_tail_lag_seconds_count")
    assert played <= tail_reads  # every event stored while the stream was open was read from the tail
    assert moved(before, after, "parlour_redis_command_seconds_count", command="EVALSHA") >= 2 + played
    assert value(after, "parlour_redis_ping_seconds") > 0


async def _redis_counters_after_a_game(target: RedisTarget, prefix: str, data_dir: Path, acks: int) -> int:
    """Play one game to the end on a server over ``target`` (acknowledged by ``acks`` replicas) and check
    that the metrics endpoint counted its Redis round trips; the number of commands played."""
    app = build_app(server_settings(target, prefix, data_dir, replica_acks=acks))
    await app.start()
    try:
        url = f"http://127.0.0.1:{app.http_port}/metrics"
        before = await scrape(url)
        async with GameClient(f"127.0.0.1:{app.grpc_port}") as client:
            game = await seated_game(client, "oldmen", 3, seed=b"redis-metrics")
            played = await _play_to_the_end(client, game.game_id, game.tokens)
        after = await scrape(url)
    finally:
        await app.stop(grace=0)
        await delete_prefix(target.url, prefix)
    # Each command is one append: the script alone, or the script and its WAIT in one round trip.
    appends = "PIPELINE EVALSHA+WAIT" if acks else "EVALSHA"
    assert moved(before, after, "parlour_redis_command_seconds_count", command=appends) >= played > 0
    assert moved(before, after, "parlour_redis_command_seconds_count", command="HGETALL") > 0  # the game's metadata
    assert moved(before, after, "parlour_redis_command_seconds_count", command="PING") >= 1  # the scrape's own
    assert value(after, "parlour_redis_ping_seconds") > 0
    return played


async def test_the_time_the_event_loop_spends_busy_is_counted(app: App) -> None:
    """The loop's busy seconds count the time work held it, and not the time it waited: their rate is how
    saturated a process is."""
    url = f"http://127.0.0.1:{app.http_port}/metrics"
    before = await scrape(url)
    started = time.perf_counter()
    time.sleep(0.3)  # noqa: ASYNC251 - work that holds the server's loop (the test runs on it)
    await asyncio.sleep(1.5)  # the loop waits; the counter is brought up to date each second
    after = await scrape(url)
    busy = moved(before, after, "parlour_event_loop_busy_seconds_total")
    assert 0.3 <= busy < 0.3 + (time.perf_counter() - started - 0.3) / 2


@pytest.mark.parametrize("acks", [0, 1], ids=["no-acks", "replica-acks"])
async def test_redis_round_trips_are_counted_on_a_cluster(
    redis_cluster: RedisTarget, key_prefix: str, tmp_path: Path, acks: int
) -> None:
    await _redis_counters_after_a_game(redis_cluster, key_prefix, tmp_path, acks)


async def test_the_append_and_its_wait_are_counted_on_a_single_redis(key_prefix: str, tmp_path: Path) -> None:
    """``--replica-acks 1`` on a single Redis with a replica of its own: the pipelined append is counted."""
    master = RedisProcess(tmp_path / "master", port=free_port())
    master.start()
    replica = RedisProcess(tmp_path / "replica", config={"replicaof": f"127.0.0.1 {master.port}"})
    replica.start()
    try:
        synced = redis.Redis(unix_socket_path=master.socket_path)
        try:
            synced.set(f"{key_prefix}:synced", "1")
            assert synced.wait(1, 20_000) == 1  # the replica follows the master
        finally:
            synced.close()
        await _redis_counters_after_a_game(RedisTarget("own", master.url), key_prefix, tmp_path / "server", 1)
    finally:
        replica.kill()
        master.kill()


async def test_redis_errors_are_counted_by_class(redis_target: RedisTarget) -> None:
    client = MeasuredRedis.from_url(redis_target.url)
    try:
        from prometheus_client import REGISTRY

        name, labels = "parlour_redis_errors_total", {"error": "ResponseError"}
        before = REGISTRY.get_sample_value(name, labels) or 0.0
        with pytest.raises(Exception, match="unknown command"):
            await client.execute_command("NO-SUCH-COMMAND")
        assert (REGISTRY.get_sample_value(name, labels) or 0.0) - before == 1
    finally:
        await client.aclose()


async def test_clock_timeouts_are_counted_once_each(app: App) -> None:
    """Three silent seats time out until the game ends: the counter moves once per timed-out move."""
    url = f"http://127.0.0.1:{app.http_port}/metrics"
    assert app.clocks is not None
    before = await scrape(url)
    summary = await app.games.create_game("verraeter", 3, {}, b"metrics-clock-seed")
    for seat in range(3):
        await app.games.claim_seat(summary.game_id, seat, f"silent-{seat}")
    await app.clocks.start(summary.game_id, TimeControl(move_ms=100, max_timeouts=1), 3)
    final = (await finished_view(app, summary.game_id, seconds=120)).version
    clocks = RedisClocks(app.redis.client, Keys(app.settings.key_prefix))
    for _ in range(1200):  # the last move is charged just after it is stored
        clock = await clocks.load(summary.game_id)
        if clock is not None and clock.charged >= final:
            break
        await asyncio.sleep(0.05)
    assert clock is not None and clock.dropped == {0, 1, 2}
    stored = await app.store.read(summary.game_id, 1, 100_000)
    timed_out = [e for e in stored if e.command and e.timed_out]
    assert sum(clock.timeouts.values()) == len(timed_out) > 3  # dropped seats go on timing out at once
    after = await scrape(url)
    assert moved(before, after, "parlour_clock_timeouts_total", game="verraeter") == len(timed_out)


@pytest.fixture
async def metrics_port_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    settings = replace(server_settings(redis_target, key_prefix, tmp_path), metrics_port=0)
    server = build_app(settings)
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def test_a_metrics_port_serves_only_the_metrics(metrics_port_app: App) -> None:
    assert metrics_port_app.metrics_http is not None
    port = metrics_port_app.metrics_http.port
    samples = await scrape(f"http://127.0.0.1:{port}/metrics")
    assert ("parlour_games", frozenset({("status", "running")})) in samples
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/v1/gameTypes") as reply:
        assert reply.status == 404


async def test_every_grpc_call_returns_its_request_id_and_logs_it(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    channel, games = stub(target)
    configure_logging("info", json=True)
    try:
        call = games.ListGameTypes(game_service_pb2.ListGameTypesRequest())
        await call
        generated = dict(await call.trailing_metadata())["parlour-request-id"]
        assert len(generated) == 16
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await games.GetGame(
                game_service_pb2.GetGameRequest(game_id="nosuchgame"), metadata=[("x-request-id", "client-chosen-7")]
            )
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    finally:
        with capsys.disabled():  # log to the real stderr again, not to this test's capture (closed after it)
            configure_logging("warning", json=True)
        await channel.close()
    trailing = dict(failed.value.trailing_metadata() or ())
    assert trailing["parlour-request-id"] == "client-chosen-7"
    assert trailing["parlour-error-reason"] == "game/not_found"
    rejected = [line for line in lines if line.get("event") == "request rejected"]
    assert [line["request_id"] for line in rejected] == ["client-chosen-7"]


async def test_a_server_stream_returns_its_request_id(target: str) -> None:
    """A WatchGame stream (here of a finished game, so it ends by itself) carries the call's request id in
    its trailing metadata, as unary calls do."""
    async with GameClient(target) as client:
        game = await seated_game(client, seed=b"stream-request-id")
        await finish(client, game)
    channel, games = stub(target)
    async with channel:
        call = games.WatchGame(
            game_service_pb2.WatchGameRequest(game_id=game.game_id), metadata=[("x-request-id", "watch-chosen-3")]
        )
        events = [reply async for reply in call]
        trailing = dict(await call.trailing_metadata())
    assert events and trailing["parlour-request-id"] == "watch-chosen-3"


async def test_every_http_response_carries_its_request_id_and_logs_it(
    app: App, capsys: pytest.CaptureFixture[str]
) -> None:
    base = f"http://127.0.0.1:{app.http_port}"
    configure_logging("info", json=True)
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(base + "/v1/gameTypes") as reply:
                assert reply.status == 200 and len(reply.headers["X-Request-Id"]) == 16
            async with session.get(base + "/v1/games/nosuchgame", headers={"X-Request-Id": "mine.1"}) as reply:
                assert reply.status == 404 and reply.headers["X-Request-Id"] == "mine.1"
            async with session.get(base + "/v1/gameTypes", headers={"X-Request-Id": "not valid!"}) as reply:
                assert reply.headers["X-Request-Id"] != "not valid!"
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    finally:
        with capsys.disabled():  # log to the real stderr again, not to this test's capture (closed after it)
            configure_logging("warning", json=True)
    rejected = [line for line in lines if line.get("event") == "request rejected"]
    assert [(line["request_id"], line["reason"]) for line in rejected] == [("mine.1", "game/not_found")]


async def test_a_token_never_appears_in_the_metrics(app: App, target: str) -> None:
    """Metrics carry no game ids or tokens (labels are bounded and public)."""
    async with GameClient(target) as client:
        game = await seated_game(client, "oldmen", 3, seed=b"metrics-private")
        seat = (await client.view(game.game_id)).pending_seats[0]
        own = await client.view(game.game_id, seat, game.tokens[seat])
        await client.submit(game.game_id, seat, game.tokens[seat], own.legal_commands[0])
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{app.http_port}/metrics") as reply:
        text = await reply.text()
    assert game.game_id not in text and not any(token in text for token in game.tokens)


@pytest.fixture
async def admin_app(redis_target: RedisTarget, key_prefix: str, tmp_path: Path) -> AsyncIterator[App]:
    server = build_app(server_settings(redis_target, key_prefix, tmp_path, admin_key=ADMIN_KEY))
    await server.start()
    yield server
    await server.stop(grace=0)
    await delete_prefix(redis_target.url, key_prefix)


async def test_tournament_progress_is_counted_by_kind(admin_app: App) -> None:
    """A round robin of three bots to its end: each kind of tournament event moves its counter by as many
    events of that kind as the tournament's log holds."""
    url = f"http://127.0.0.1:{admin_app.http_port}/metrics"
    target = f"127.0.0.1:{admin_app.grpc_port}"
    before = await scrape(url)
    names = ["metric-a", "metric-b", "metric-c"]
    tournament = await create_and_register(target, names, table_size=3, rounds=2)
    bots = [
        asyncio.create_task(run_bot(target, name, BOT_KEY, lambda g: make_bot("random", g), max_games=2))
        for name in names
    ]
    await start(target, tournament)
    await asyncio.wait_for(asyncio.gather(*bots), timeout=120)
    log = await tournament_events(target, tournament)  # ends after the tournament's last event
    after = await scrape(url)
    kinds = Counter(str(event.WhichOneof("kind")) for event in log)
    assert kinds["finished"] == 1 and kinds["table_finished"] == 2
    for kind, count in kinds.items():
        assert moved(before, after, "parlour_tournament_events_total", kind=kind) == count, kind
