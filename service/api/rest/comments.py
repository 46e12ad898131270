"""The comments of the .proto files, for the OpenAPI document's descriptions.

``make proto`` writes ``parlour/v1/descriptors.binpb`` (a FileDescriptorSet with source info) beside the
generated code. Without that file the document simply has no descriptions.
"""

from __future__ import annotations

import functools

from google.protobuf import descriptor_pb2

from service.api.descriptors import documented_files

__all__ = ["proto_comments"]

_MESSAGE, _ENUM, _SERVICE = 4, 5, 6
_FIELD, _NESTED, _NESTED_ENUM = 2, 3, 4
_METHOD = 2


@functools.cache
def proto_comments() -> dict[str, str]:
    """Leading comments by full name: messages, enums, ``Message.field`` and ``Service.Method``."""
    comments: dict[str, str] = {}
    for file in documented_files():
        names = _names(file)
        for location in file.source_code_info.location:
            name = names.get(tuple(location.path))
            text = " ".join(line.strip() for line in location.leading_comments.strip().splitlines())
            if name and text:
                comments[name] = text
    return comments


def _names(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """Source-info paths of the file's declarations, with their full names."""
    names: dict[tuple[int, ...], str] = {}
    package = file.package + "." if file.package else ""

    def message(path: tuple[int, ...], proto: descriptor_pb2.DescriptorProto, prefix: str) -> None:
        full = prefix + proto.name
        names[path] = full
        for i, field in enumerate(proto.field):
            names[(*path, _FIELD, i)] = f"{full}.{field.name}"
        for i, nested in enumerate(proto.nested_type):
            message((*path, _NESTED, i), nested, full + ".")
        for i, enum in enumerate(proto.enum_type):
            names[(*path, _NESTED_ENUM, i)] = f"{full}.{enum.name}"

    for i, proto in enumerate(file.message_type):
        message((_MESSAGE, i), proto, package)
    for i, enum in enumerate(file.enum_type):
        names[(_ENUM, i)] = package + enum.name
    for i, service in enumerate(file.service):
        names[(_SERVICE, i)] = package + service.name
        for j, method in enumerate(service.method):
            names[(_SERVICE, i, _METHOD, j)] = f"{package}{service.name}.{method.name}"
    return names
