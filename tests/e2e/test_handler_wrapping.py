"""Every method of the server is wrapped once, when it is registered (service.api.grpc_wrapping): the
generated services, health and reflection alike get a request id and pass the gate, and no method is
registered with grpc.aio as a "registered method" (its server loop re-arms one pending request per such
method on every call)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from parlour.v1 import game_service_pb2, game_service_pb2_grpc
from service.api.grpc_wrapping import WrappingRegistry


class _Recorder:
    """A stand-in server that records what is registered on it."""

    def __init__(self) -> None:
        self.generic: list[grpc.GenericRpcHandler] = []
        self.registered: list[str] = []

    def add_generic_rpc_handlers(self, generic_rpc_handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self.generic.extend(generic_rpc_handlers)

    def add_registered_method_handlers(self, service_name: str, method_handlers: Mapping[str, Any]) -> None:
        self.registered.append(service_name)


class _Details(grpc.HandlerCallDetails):
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


def _tagging(tag: str, seen: list[str]) -> Any:
    def wrapper(method: str, handler: Any) -> Any:
        seen.append(f"{tag}:{method}")
        return handler._replace(unary_unary=(tag, handler.unary_unary))

    return wrapper


def test_registered_methods_are_served_as_wrapped_generic_handlers() -> None:
    server, seen = _Recorder(), list[str]()
    registry = WrappingRegistry(server, [_tagging("outer", seen), _tagging("inner", seen)])
    game_service_pb2_grpc.add_GameServiceServicer_to_server(game_service_pb2_grpc.GameServiceServicer(), registry)  # type: ignore[abstract, arg-type]  # the generated base servicer, registered on a stand-in registry
    assert server.registered == []
    method = "/parlour.v1.GameService/SubmitCommand"
    handlers: list[Any] = [h.service(_Details(method)) for h in server.generic]
    assert handlers and all(h is not None for h in handlers)
    first = handlers[0]
    assert first.unary_unary[0] == "outer" and first.unary_unary[1][0] == "inner"  # the first wrapper outermost
    assert first is server.generic[0].service(_Details(method))  # wrapped once, not on every call
    assert server.generic[0].service(_Details("/parlour.v1.GameService/NoSuchMethod")) is None


async def test_health_and_reflection_calls_carry_a_request_id(target: str) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert (await health).status == health_pb2.HealthCheckResponse.SERVING
        assert len(dict(await health.trailing_metadata())["parlour-request-id"]) == 16
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        replies = [reply async for reply in reflection]
        names = {s.name for s in replies[0].list_services_response.service}
        assert game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name in names
        assert len(dict(await reflection.trailing_metadata())["parlour-request-id"]) == 16
