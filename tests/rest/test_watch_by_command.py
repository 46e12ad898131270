"""A watcher may receive one message per command (``WatchGameRequest.by_command``, ``?byCommand=true``):
each reply carries every event of one command, in order, with the last one's version to resume from, over
gRPC and as one Server-Sent Event; a watcher that does not ask still gets one event per reply, as before."""

from __future__ import annotations

import json
import random

import aiohttp
import grpc

from parlour.client import GameClient
from parlour.v1 import game_service_pb2, game_service_pb2_grpc
from tests.rest.harness import JsonClient, RunningServer, sse_messages
from tests.rest.play import create_with_seats, play_to_end


async def _finished_game(api: JsonClient) -> str:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    await play_to_end(api, game_id, tokens, random.Random(7))
    return game_id


async def _grpc_replies(
    server: RunningServer, game_id: str, *, by_command: bool, start: int = 1
) -> list[game_service_pb2.WatchGameResponse]:
    async with grpc.aio.insecure_channel(server.grpc_target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=start, by_command=by_command)
        return [reply async for reply in stub.WatchGame(request)]


async def test_one_reply_per_command_over_grpc_with_every_event_once(api: JsonClient, server: RunningServer) -> None:
    game_id = await _finished_game(api)
    single = await _grpc_replies(server, game_id, by_command=False)
    batched = await _grpc_replies(server, game_id, by_command=True)
    assert [r.event.version for r in single] == [r.version for r in single] == list(range(1, len(single) + 1))
    assert all(not r.events for r in single)
    flattened = [e for reply in batched for e in reply.events]
    assert [e.SerializeToString(deterministic=True) for e in flattened] == [
        r.event.SerializeToString(deterministic=True) for r in single
    ]
    assert len(batched) < len(single)
    for reply in batched:
        assert not reply.HasField("event")
        assert reply.version == reply.events[-1].version
        assert [e.version for e in reply.events] == list(range(reply.events[0].version, reply.version + 1))
        assert len({e.command_id for e in reply.events}) == 1  # one command (or the setup), whole
    ids = [reply.events[0].command_id for reply in batched]
    assert ids[0] == "" and len(set(ids)) == len(ids)  # the setup first, then each command once


async def test_a_watch_by_command_resumes_from_the_version_after_the_last_reply(
    api: JsonClient, server: RunningServer
) -> None:
    game_id = await _finished_game(api)
    batched = await _grpc_replies(server, game_id, by_command=True)
    middle = batched[len(batched) // 2]
    rest = await _grpc_replies(server, game_id, by_command=True, start=middle.version + 1)
    assert [r.version for r in rest] == [r.version for r in batched[len(batched) // 2 + 1 :]]


async def test_one_server_sent_event_per_command_whose_id_is_the_last_version(
    api: JsonClient, server: RunningServer
) -> None:
    game_id = await _finished_game(api)
    batched = await _grpc_replies(server, game_id, by_command=True)
    url = f"{server.http_url}/v1/games/{game_id}:watch"
    async with aiohttp.ClientSession() as session, session.get(url, params={"byCommand": "true"}) as reply:
        messages = [message async for message in sse_messages(reply) if message.event == "message"]
    assert [m.id for m in messages] == [str(r.version) for r in batched]
    assert [len(json.loads(m.data)["events"]) for m in messages] == [len(r.events) for r in batched]
    async with aiohttp.ClientSession() as session:
        headers = {"Last-Event-ID": messages[3].id or ""}
        async with session.get(url, params={"byCommand": "true"}, headers=headers) as reply:
            resumed = [message async for message in sse_messages(reply) if message.event == "message"]
    assert [m.id for m in resumed] == [m.id for m in messages[4:]]


async def test_the_sdk_watches_a_live_game_one_message_per_command(api: JsonClient, server: RunningServer) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    async with GameClient(server.grpc_target) as client:
        commands = client.watch_commands(game_id)
        setup = await anext(commands)
        assert [e.version for e in setup] == list(range(1, len(setup) + 1))
        await play_to_end(api, game_id, tokens, random.Random(3))
        rest = [command async for command in commands]
    versions = [e.version for command in [setup, *rest] for e in command]
    assert versions == list(range(1, versions[-1] + 1))
    assert all(len({e.command_id for e in command}) == 1 and command[0].command_id for command in rest)
