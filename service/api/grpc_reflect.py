"""gRPC server reflection, both ``grpc.reflection.v1`` (asked first by grpcurl and current tools) and
``grpc.reflection.v1alpha``, answering with file descriptors that keep the .proto comments.

grpcio-reflection serves only v1alpha, and from the generated modules, whose descriptors have no source
info. This servicer answers from a pool of its own: Parlour's files as ``make proto`` compiled them (with
comments), their dependencies as the process has them, and the reflection protocol's own file. v1 is the
same protocol as v1alpha under another package name (the messages are field for field the same), so its
file is v1alpha's renamed, and one servicer answers both.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import FileDescriptor
from google.protobuf.message import Message
from grpc_reflection.v1alpha import reflection_pb2 as v1alpha

from service.api.descriptors import documented_files
from service.api.grpc_wrapping import HandlerRegistry

__all__ = ["REFLECTION_SERVICES", "add_reflection"]

_V1ALPHA = "grpc.reflection.v1alpha"
_V1 = "grpc.reflection.v1"
#: The full names of the two reflection services this module adds.
REFLECTION_SERVICES = (f"{_V1}.ServerReflection", f"{_V1ALPHA}.ServerReflection")


def _proto_of(file: FileDescriptor) -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto()
    file.CopyToProto(proto)
    return proto


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """``grpc/reflection/v1/reflection.proto``: v1alpha's file under v1's name and package."""
    proto = _proto_of(v1alpha.DESCRIPTOR)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = _V1
    proto.ClearField("options")
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(f".{_V1ALPHA}."):
                field.type_name = f".{_V1}." + field.type_name.removeprefix(f".{_V1ALPHA}.")
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(f".{_V1ALPHA}.", f".{_V1}.")
            method.output_type = method.output_type.replace(f".{_V1ALPHA}.", f".{_V1}.")
    return proto


class _Files:
    """Serialized FileDescriptorProtos by file name, and a pool to find which file defines a symbol."""

    def __init__(self, roots: Iterable[FileDescriptor]) -> None:
        documented = {file.name: file for file in documented_files()}
        self.serialized: dict[str, bytes] = {}
        self.dependencies: dict[str, tuple[str, ...]] = {}
        self.pool = descriptor_pool.DescriptorPool()
        for root in (*roots, v1alpha.DESCRIPTOR):
            self._add(root, documented)
        self._add_proto(_v1_file())

    def _add(self, file: FileDescriptor, documented: dict[str, descriptor_pb2.FileDescriptorProto]) -> None:
        if file.name in self.serialized:
            return
        for dependency in file.dependencies:
            self._add(dependency, documented)
        self._add_proto(documented.get(file.name) or _proto_of(file))

    def _add_proto(self, proto: descriptor_pb2.FileDescriptorProto) -> None:
        self.pool.Add(proto)
        self.serialized[proto.name] = proto.SerializeToString()
        self.dependencies[proto.name] = tuple(proto.dependency)

    def closure(self, name: str) -> list[bytes]:
        """The file ``name`` first, then every file it depends on, each once."""
        order: list[str] = []
        pending = [name]
        while pending:
            current = pending.pop(0)
            if current not in order:
                order.append(current)
                pending.extend(self.dependencies.get(current, ()))
        return [self.serialized[n] for n in order]


class _Protocol:
    """One reflection package's messages (v1 and v1alpha have the same shapes)."""

    def __init__(self, pool: descriptor_pool.DescriptorPool, package: str) -> None:
        def message(name: str) -> Any:
            return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}"))

        self.request: type[Message] = message("ServerReflectionRequest")
        self.response: Any = message("ServerReflectionResponse")
        self.service = f"{package}.ServerReflection"


class _Reflection:
    """Answers ServerReflectionInfo requests for ``services`` from ``files``."""

    def __init__(self, files: _Files, services: Sequence[str]) -> None:
        self._files = files
        self._services = sorted(services)

    def answer(self, protocol: _Protocol, request: Any) -> Message:
        response = protocol.response(valid_host=request.host, original_request=request)
        kind = request.WhichOneof("message_request")
        if kind == "list_services":
            for name in self._services:
                response.list_services_response.service.add(name=name)
            return response  # type: ignore[no-any-return]  # the reflection protocol module's messages are untyped
        try:
            files = self._lookup(kind, request)
        except KeyError:
            response.error_response.error_code = grpc.StatusCode.NOT_FOUND.value[0]
            response.error_response.error_message = f"{kind}: not found on this server"
            return response  # type: ignore[no-any-return]  # the reflection protocol module's messages are untyped
        if kind == "all_extension_numbers_of_type":
            response.all_extension_numbers_response.base_type_name = request.all_extension_numbers_of_type
            response.all_extension_numbers_response.extension_number.extend(files)
        else:
            response.file_descriptor_response.file_descriptor_proto.extend(files)
        return response  # type: ignore[no-any-return]  # the reflection protocol module's messages are untyped

    def _lookup(self, kind: str | None, request: Any) -> list[Any]:
        pool = self._files.pool
        match kind:
            case "file_by_filename":
                return self._files.closure(pool.FindFileByName(request.file_by_filename).name)
            case "file_containing_symbol":
                return self._files.closure(pool.FindFileContainingSymbol(request.file_containing_symbol).name)
            case "file_containing_extension":
                wanted = request.file_containing_extension
                extension = pool.FindExtensionByNumber(
                    pool.FindMessageTypeByName(wanted.containing_type), wanted.extension_number
                )
                return self._files.closure(pool.FindFileContainingSymbol(extension.full_name).name)
            case "all_extension_numbers_of_type":
                base = pool.FindMessageTypeByName(request.all_extension_numbers_of_type)
                return sorted(extension.number for extension in pool.FindAllExtensions(base))
        raise KeyError(kind)


def _handler(reflection: _Reflection, protocol: _Protocol) -> grpc.GenericRpcHandler:
    async def info(requests: AsyncIterator[Any], _: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Message]:
        async for request in requests:
            yield reflection.answer(protocol, request)

    method = grpc.stream_stream_rpc_method_handler(
        info, request_deserializer=protocol.request.FromString, response_serializer=protocol.response.SerializeToString
    )
    return grpc.method_handlers_generic_handler(protocol.service, {"ServerReflectionInfo": method})


def add_reflection(server: HandlerRegistry, services: Sequence[str], files: Iterable[FileDescriptor]) -> None:
    """Serve reflection v1 and v1alpha on ``server``, listing ``services`` and the two reflection services,
    describing ``files`` (the files defining the services) and everything they import."""
    known = _Files(files)
    reflection = _Reflection(known, (*services, *REFLECTION_SERVICES))
    for package in (_V1, _V1ALPHA):
        server.add_generic_rpc_handlers((_handler(reflection, _Protocol(known.pool, package)),))
