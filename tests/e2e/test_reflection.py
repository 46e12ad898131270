"""Server reflection as a generic tool uses it: a client that knows only the reflection protocol lists the
services over ``grpc.reflection.v1`` (and ``v1alpha``), fetches their descriptors, finds the documentation
of the .proto files in them, and calls an rpc from the descriptors alone (no generated Parlour code).

The reflection messages are encoded with grpcio-reflection's v1alpha classes on both paths: v1's messages
are field for field the same as v1alpha's; only the package name differs."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection_pb2 as wire

from engines.registry import game_names

PACKAGES = ["grpc.reflection.v1", "grpc.reflection.v1alpha"]


async def _ask(target: str, package: str, **request: Any) -> Any:
    """One ServerReflectionInfo exchange on ``package``'s service."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.stream_stream(
            f"/{package}.ServerReflection/ServerReflectionInfo",
            request_serializer=wire.ServerReflectionRequest.SerializeToString,
            response_deserializer=wire.ServerReflectionResponse.FromString,
        )
        replies = [reply async for reply in call(iter([wire.ServerReflectionRequest(**request)]))]
    assert len(replies) == 1
    return replies[0]


def _files(reply: Any) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    assert reply.WhichOneof("message_response") == "file_descriptor_response", reply
    protos = [
        descriptor_pb2.FileDescriptorProto.FromString(b) for b in reply.file_descriptor_response.file_descriptor_proto
    ]
    return {proto.name: proto for proto in protos}


def _pool(files: dict[str, descriptor_pb2.FileDescriptorProto]) -> descriptor_pool.DescriptorPool:
    """A pool of the files, each added after its dependencies (all of which must be in ``files``)."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(name: str) -> None:
        if name not in added:
            for dependency in files[name].dependency:
                add(dependency)
            pool.Add(files[name])
            added.add(name)

    for name in files:
        add(name)
    return pool


@pytest.mark.parametrize("package", PACKAGES)
async def test_reflection_lists_every_service_and_describes_each(target: str, package: str) -> None:
    reply = await _ask(target, package, list_services="")
    names = {service.name for service in reply.list_services_response.service}
    assert {"parlour.v1.GameService", "parlour.v1.ReplayService", "grpc.health.v1.Health"} <= names
    assert {"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= names
    for name in names:
        pool = _pool(_files(await _ask(target, package, file_containing_symbol=name)))
        assert pool.FindServiceByName(name).methods


@pytest.mark.parametrize("package", PACKAGES)
async def test_descriptors_carry_the_proto_comments(target: str, package: str) -> None:
    files = _files(await _ask(target, package, file_containing_symbol="parlour.v1.GameService"))
    service_file = files["parlour/v1/game_service.proto"]
    service_index = [s.name for s in service_file.service].index("GameService")
    method_index = [m.name for m in service_file.service[service_index].method].index("SubmitCommand")
    comments = {tuple(loc.path): loc.leading_comments for loc in service_file.source_code_info.location}
    submit = comments[(6, service_index, 2, method_index)]  # service, its index, method, its index
    assert "Submit a command for a seat" in submit
    assert "game/stale_version" in submit
    request_index = [m.name for m in service_file.message_type].index("SubmitCommandRequest")
    field_index = [f.name for f in service_file.message_type[request_index].field].index("command_id")
    assert "command/id_reused" in comments[(4, request_index, 2, field_index)]


async def test_a_client_made_from_reflection_alone_calls_the_server(target: str) -> None:
    pool = _pool(_files(await _ask(target, "grpc.reflection.v1", file_containing_symbol="parlour.v1.GameService")))
    method = pool.FindServiceByName("parlour.v1.GameService").methods_by_name["ListGameTypes"]
    request_type = message_factory.GetMessageClass(method.input_type)
    reply_type = message_factory.GetMessageClass(method.output_type)
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.unary_unary(
            "/parlour.v1.GameService/ListGameTypes",
            request_serializer=request_type.SerializeToString,
            response_deserializer=reply_type.FromString,
        )
        reply = await call(request_type(), timeout=10)
    assert {game.name for game in reply.game_types} == set(game_names())


async def test_an_unknown_symbol_is_not_found(target: str) -> None:
    reply = await _ask(target, "grpc.reflection.v1", file_containing_symbol="parlour.v1.NoSuchService")
    assert reply.WhichOneof("message_response") == "error_response"
    assert reply.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
