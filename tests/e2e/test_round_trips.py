"""A command costs one Redis round trip: SubmitCommand over gRPC, counted at the Redis connections; with
``--replica-acks 1`` the append and its WAIT still go out together, as one request.

Every request sent to Redis (a command, or a pipeline of them) goes out through a connection's
``send_packed_command`` (redis-py's, or an override of it such as the server's own connections'); a send
made while a SubmitCommand call runs is attributed to that call by its request id (the call's context
carries it; the server's background tasks carry none)."""

from __future__ import annotations

import random
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from redis.asyncio.connection import AbstractConnection

from engines.contract import fold, step
from engines.envelope import wrap_command
from engines.oldmen import OLDMEN
from parlour.v1 import game_service_pb2 as pb
from service.api import request_ids
from service.bootstrap import App, build_app
from tests.conftest import RedisTarget, server_settings
from tests.e2e.helpers import auth, stub
from tests.replicated import master_and_replica, wait_for_replica

SEATS = 4

#: Sent: request id -> the bytes of each request sent to Redis while that call ran.
Sent = defaultdict[str, list[bytes]]


def _senders() -> Iterator[type[AbstractConnection]]:
    """Every connection class that defines its own ``send_packed_command``."""
    pending: list[type[AbstractConnection]] = [AbstractConnection]
    seen: set[type[AbstractConnection]] = set()
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        pending.extend(cls.__subclasses__())
        if "send_packed_command" in vars(cls):
            yield cls


def _counting(original: Any, sent: Sent) -> Any:
    async def send_packed_command(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        request_id = request_ids._CURRENT.get()
        if request_id is not None:
            chunks: Iterable[Any] = [command] if isinstance(command, (bytes, str)) else command
            sent[request_id].append(b"".join(c.encode() if isinstance(c, str) else bytes(c) for c in chunks))
        await original(self, command, check_health)

    return send_packed_command


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sent]:
    """Requests sent to Redis, by the request id of the call that sent them."""
    sent: Sent = defaultdict(list)
    for cls in list(_senders()):
        monkeypatch.setattr(cls, "send_packed_command", _counting(vars(cls)["send_packed_command"], sent))
    yield sent


@dataclass(frozen=True)
class Counted:
    """The requests one SubmitCommand sent, and whether it also wrote a snapshot or ended the game."""

    requests: list[bytes]
    snapshot: bool
    last: bool


async def _play(app: App, round_trips: Sent) -> list[Counted]:
    """Play a whole game of oldmen with random legal moves over gRPC; the requests of each SubmitCommand."""
    channel, games = stub(f"127.0.0.1:{app.grpc_port}")
    seed = b"round-trips".ljust(16, b".")
    async with channel:
        summary = (await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=SEATS, seed=seed))).game
        tokens = []
        for seat in range(SEATS):
            claim = pb.ClaimSeatRequest(game_id=summary.game_id, seat=seat, player_name=f"p{seat}")
            tokens.append((await games.ClaimSeat(claim)).seat_token)
        state, version = fold(OLDMEN, OLDMEN.start(OLDMEN.spec.config(SEATS), seed)), summary.version
        rng, counted = random.Random(5), []
        while not OLDMEN.is_over(state):
            seat = rng.choice(sorted(OLDMEN.pending(state)))
            command = rng.choice(OLDMEN.legal_commands(state, seat))
            request = pb.SubmitCommandRequest(
                game_id=summary.game_id,
                seat=seat,
                command=wrap_command(OLDMEN, command),
                command_id=uuid.uuid4().hex,
                expected_version=version,
            )
            call_id = f"move-{version}"
            reply = await games.SubmitCommand(request, metadata=[*auth(tokens[seat]), ("x-request-id", call_id)])
            snapshot = reply.version // app.settings.snapshot_every > version // app.settings.snapshot_every
            state = fold(OLDMEN, step(OLDMEN, state, seat, command), state)
            version = reply.version
            counted.append(Counted(round_trips.get(call_id, []), snapshot, OLDMEN.is_over(state)))
    return counted


def _check_one_round_trip(counted: list[Counted]) -> list[bytes]:
    """Each plain SubmitCommand sent one request; those with a snapshot two at most, the last five at most
    (the append, and the index moving the game to finished: announced, metadata read, filed by time and by
    status; once per game). Returns the plain commands' requests."""
    plain = [c.requests for c in counted if not c.snapshot and not c.last]
    assert len(plain) > 50 and {len(requests) for requests in plain} == {1}, [len(r) for r in plain]
    assert all(len(c.requests) <= 2 for c in counted if c.snapshot and not c.last)
    assert len(counted[-1].requests) <= 5
    return [requests[0] for requests in plain]


def _commands(request: bytes) -> list[bytes]:
    """The names of the commands in one packed request (RESP arrays of bulk strings)."""
    names, at = [], 0
    while at < len(request):
        assert request[at : at + 1] == b"*", request[at : at + 20]
        end = request.index(b"\r\n", at)
        count, at = int(request[at + 1 : end]), end + 2
        for position in range(count):
            end = request.index(b"\r\n", at)
            size, at = int(request[at + 1 : end]), end + 2
            if position == 0:
                names.append(request[at : at + size].upper())
            at += size + 2
    return names


async def test_a_command_makes_one_redis_round_trip(app: App, round_trips: Sent) -> None:
    """Each SubmitCommand of a whole game sends Redis one request (the append script), except the few
    that also write a snapshot or end the game (which also files the game under its new status)."""
    for request in _check_one_round_trip(await _play(app, round_trips)):
        assert _commands(request) == [b"EVALSHA"]


async def test_replica_acks_add_no_round_trip(key_prefix: str, tmp_path: Path, round_trips: Sent) -> None:
    """With ``--replica-acks 1`` on a single Redis with a replica, the append and its WAIT are one request
    (one pipeline): each plain SubmitCommand still sends Redis one request, and that request holds both."""
    with master_and_replica(tmp_path) as (master, _):
        wait_for_replica(master, f"{key_prefix}:synced")
        settings = server_settings(RedisTarget("own", master.url), key_prefix, tmp_path / "server", replica_acks=1)
        app = build_app(settings)
        await app.start()
        try:
            requests = _check_one_round_trip(await _play(app, round_trips))
        finally:
            await app.stop(grace=0)
    for request in requests:
        assert _commands(request) == [b"EVALSHA", b"WAIT"]


async def test_creating_a_game_reads_nothing_of_its_log_back(app: App, round_trips: Sent) -> None:
    """CreateGame folds the setup events it has just stored into this process's cache instead of reading
    them back: the call sends Redis no read of the game's log or snapshots, and the game then plays as
    usual (each plain command still one request, see above)."""
    channel, games = stub(f"127.0.0.1:{app.grpc_port}")
    async with channel:
        request = pb.CreateGameRequest(game="oldmen", seats=SEATS)
        await games.CreateGame(request, metadata=[("x-request-id", "create-1")])
    sent = [name for request in round_trips["create-1"] for name in _commands(request)]
    assert b"EVALSHA" in sent
    assert not {b"XRANGE", b"XREAD", b"HKEYS"} & set(sent), sent


async def test_setting_a_game_up_sends_few_requests(app: App, round_trips: Sent) -> None:
    """CreateGame sends four requests (the index's mark, the append script, the index entries with the mark
    cleared, and the clock keeper's look for a clock), reading nothing back; each ClaimSeat of a game this
    server knows sends one (the claim script, which answers with the game's metadata), and one for any
    free seat of a game whose seats it knows are all taken only reads the game."""
    channel, games = stub(f"127.0.0.1:{app.grpc_port}")
    async with channel:
        await games.CreateGame(pb.CreateGameRequest(game="oldmen", seats=SEATS), metadata=[("x-request-id", "warm")])
        request = pb.CreateGameRequest(game="oldmen", seats=SEATS)
        summary = (await games.CreateGame(request, metadata=[("x-request-id", "create")])).game
        for seat in range(SEATS):
            claim = pb.ClaimSeatRequest(game_id=summary.game_id, seat=seat, player_name=f"p{seat}")
            await games.ClaimSeat(claim, metadata=[("x-request-id", f"claim-{seat}")])
        last = pb.ClaimSeatRequest(game_id=summary.game_id, player_name="late")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await games.ClaimSeat(last, metadata=[("x-request-id", "claim-late")])
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    sent = [name for request in round_trips["create"] for name in _commands(request)]
    assert len(round_trips["create"]) == 4, sent
    assert not {b"EXISTS", b"XRANGE", b"HKEYS"} & set(sent), sent
    assert sent.count(b"HGETALL") == 1, sent  # the clock keeper's, not the game's metadata read back
    for seat in range(SEATS):
        assert [_commands(r) for r in round_trips[f"claim-{seat}"]] == [[b"EVALSHA"]]
    late = [_commands(r) for r in round_trips["claim-late"]]
    assert late == [[b"HGETALL"]], "every seat is known to be taken: the game is read, no seat is tried"
