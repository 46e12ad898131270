"""The .proto files as compiled, with their comments: ``make proto`` writes ``parlour/v1/descriptors.binpb``
(a FileDescriptorSet with source info) beside the generated code. The generated ``_pb2`` modules carry no
comments, so reflection and the OpenAPI document read them from here."""

from __future__ import annotations

import functools
from importlib import resources

from google.protobuf import descriptor_pb2

__all__ = ["documented_files"]


@functools.cache
def documented_files() -> tuple[descriptor_pb2.FileDescriptorProto, ...]:
    """Parlour's own .proto files with source info (comments), or none when the file was not generated."""
    try:
        data = resources.files("parlour.v1").joinpath("descriptors.binpb").read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return ()
    return tuple(descriptor_pb2.FileDescriptorSet.FromString(data).file)
