"""Checking a JSON request against its Protobuf message before parsing it, so that a value of the wrong
type or an unknown field gets a sentence naming the field and what it expects (Protobuf's own parser
speaks of Python: ``invalid literal for int() with base 10``, ``Message type ... Available Fields``).

The checks follow Protobuf's canonical JSON mapping: integers as JSON numbers or decimal strings, 64-bit
ones included; enums by name or number; bytes as base64; maps as objects; repeated fields as arrays; a
field by its JSON name or its proto name; ``null`` for the default value.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from typing import Any

from google.protobuf import timestamp_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from service.app.errors import ServiceError

__all__ = ["check_values"]

_INTEGER = re.compile(r"-?\d+")
_RANGES: dict[int, tuple[int, int]] = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_FLOATS = (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE)
_SPECIAL_FLOATS = ("NaN", "Infinity", "-Infinity")


def _invalid(message: str) -> ServiceError:
    return ServiceError("request/invalid", message)


def check_values(descriptor: Descriptor, values: Any, where: str = "") -> None:
    """Raise ServiceError ``request/invalid`` naming the first field of ``values`` (a decoded JSON
    object meant for ``descriptor``) that is unknown or does not hold a value of its type. ``where`` is
    the dotted JSON path of ``values`` in the request ("" for the request itself)."""
    if not isinstance(values, dict):
        raise _invalid(f"{_name(where)} must be a JSON object of {descriptor.name}'s fields, not {_kind(values)}")
    by_name = {f.json_name: f for f in descriptor.fields} | {f.name: f for f in descriptor.fields}
    oneofs: dict[str, str] = {}
    for key, value in values.items():
        field = by_name.get(key)
        path = f"{where}.{key}" if where else str(key)
        if field is None:
            takes = ", ".join(f.json_name for f in descriptor.fields) or "no fields"
            raise _invalid(f"{_name(where)} has no field {str(key)[:40]!r}; {descriptor.name} takes: {takes}")
        if value is None:
            continue
        oneof = field.containing_oneof
        if oneof is not None:
            if oneof.name in oneofs:
                raise _invalid(f"{path} and {oneofs[oneof.name]} cannot both be set: {_name(where)} takes one of them")
            oneofs[oneof.name] = path
        _check_field(field, value, path)


def _check_field(field: FieldDescriptor, value: Any, path: str) -> None:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        if not isinstance(value, dict):
            raise _invalid(f"field {path!r} must be a JSON object (a map), not {_kind(value)}")
        value_field = field.message_type.fields_by_name["value"]
        for key, item in value.items():
            _check_single(value_field, item, f"{path}.{key}")
    elif field.is_repeated:
        if not isinstance(value, list):
            raise _invalid(f"field {path!r} must be a JSON array, not {_kind(value)}")
        for index, item in enumerate(value):
            _check_single(field, item, f"{path}[{index}]")
    else:
        _check_single(field, value, path)


def _check_single(field: FieldDescriptor, value: Any, path: str) -> None:
    if field.message_type is not None:
        _check_message(field.message_type, value, path)
    elif field.type in _RANGES:
        _check_integer(field, value, path)
    elif field.type in _FLOATS:
        if not (_is_number(value) or value in _SPECIAL_FLOATS or (isinstance(value, str) and _is_float(value))):
            raise _invalid(f"field {path!r} must be a number, not {_kind(value)}")
    elif field.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise _invalid(f"field {path!r} must be true or false, not {_kind(value)}")
    elif field.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise _invalid(f"field {path!r} must be a string, not {_kind(value)}")
    elif field.type == FieldDescriptor.TYPE_BYTES:
        _check_bytes(value, path)
    elif field.type == FieldDescriptor.TYPE_ENUM:
        _check_enum(field, value, path)


def _check_message(descriptor: Descriptor, value: Any, path: str) -> None:
    if descriptor.full_name == "google.protobuf.Timestamp":
        if not isinstance(value, str) or not _is_timestamp(value):
            raise _invalid(f'field {path!r} must be an RFC 3339 time such as "2026-01-31T12:00:00Z"')
    elif descriptor.full_name.startswith("google.protobuf."):
        return  # other well-known types: the parser's checks apply
    else:
        check_values(descriptor, value, path)


def _check_integer(field: FieldDescriptor, value: Any, path: str) -> None:
    low, high = _RANGES[field.type]
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif (isinstance(value, float) and value.is_integer()) or (
        isinstance(value, str) and _INTEGER.fullmatch(value.strip())
    ):
        number = int(value)
    if number is None or not low <= number <= high:
        raise _invalid(f"field {path!r} must be a whole number from {low} to {high}, not {_kind(value)}")


def _check_bytes(value: Any, path: str) -> None:
    if isinstance(value, str):
        text = value.strip().replace("-", "+").replace("_", "/")
        try:
            base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
            return
        except (binascii.Error, ValueError):
            pass
    raise _invalid(f"field {path!r} must be bytes written in base64, not {_kind(value)}")


def _check_enum(field: FieldDescriptor, value: Any, path: str) -> None:
    enum = field.enum_type
    assert enum is not None
    if isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31:
        return
    if isinstance(value, str) and value in enum.values_by_name:
        return
    names = ", ".join(v.name for v in enum.values if v.number != 0) or "none"
    raise _invalid(f"field {path!r} must be one of {names} (or its number), not {_kind(value)}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_timestamp(text: str) -> bool:
    try:
        timestamp_pb2.Timestamp().FromJsonString(text)
    except ValueError:
        return False
    return True


def _name(where: str) -> str:
    return f"field {where!r}" if where else "the request"


def _kind(value: Any) -> str:
    """A short description of a JSON value for a sentence (never more than 40 characters of it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null" if value is None else type(value).__name__
