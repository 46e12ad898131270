"""Engine states as explicit, versioned bytes: what a snapshot stores, readable after an upgrade.

A state is encoded as JSON by field name (frozen dataclasses and named tuples become objects, tuples become
arrays, enums their values, bytes hex strings), never by class path: renaming or moving a state class
keeps every snapshot readable. Decoding is driven by the state class's type hints and is strict: a missing
or unknown field, or a value of the wrong shape, raises :class:`SnapshotError`, so the caller folds the log
instead of trusting a snapshot it cannot read. Equal records made only of scalars and tuples of scalars (a
card, a land type) decode to one instance, shared by every state one codec decodes.

:attr:`StateCodec.fingerprint` digests the shape of a state class (field names and their types, enum values,
recursively; class names left out). A snapshot is tagged with it, so a snapshot written before a change of
shape is never decoded into the new shape: it is skipped and the log is folded.

A field declared with ``dataclasses.field(metadata=GIVEN)`` is not stored: it holds something the game
itself knows (the rules of its version, :mod:`engines.rules`), and the game gives it back to
:class:`StateCodec` (``given``), so a snapshot holds only what the events changed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

__all__ = ["FORMAT", "GIVEN", "SnapshotError", "StateCodec", "encode_state"]

#: The version of this encoding (bumped if the JSON layout itself ever changes).
FORMAT = "state-json-1"

_Decoder = Callable[[Any, str], Any]
#: How many distinct values of one small record class (see ``_shared``) a codec keeps to share, at most.
_SHARED_VALUES = 4096

#: The metadata of a state field a snapshot does not store (the game gives its value back when decoding).
GIVEN: Mapping[str, str] = types.MappingProxyType({"parlour.snapshot": "given"})


class SnapshotError(ValueError):
    """The bytes are not a state of the expected shape (the sentence says where and why)."""


def encode_state(state: Any) -> bytes:
    """The state as compact JSON bytes (deterministic: the same state always gives the same bytes)."""
    return json.dumps(_encode(state), separators=(",", ":"), ensure_ascii=False).encode()


class StateCodec:
    """Encodes and decodes the states of one state class. Build it once per game: reading the class's type
    hints is done here, so decoding a snapshot costs about as much as folding a few events."""

    def __init__(self, state_type: type[Any], given: Mapping[str, Any] | None = None) -> None:
        """``given``: the value of each field declared with :data:`GIVEN` (by field name), put back into
        every decoded state. Raises :class:`SnapshotError` if ``state_type`` holds a value this encoding
        cannot express, or a given field ``given`` lacks."""
        self.state_type = state_type
        #: A short digest of the shape of the state class (12 hex digits): field names and their types,
        #: enum values, recursively; class names are left out, so moving or renaming a class keeps it.
        self.fingerprint = hashlib.sha256(_shape(state_type, ()).encode()).hexdigest()[:12]
        self._decoder = _decoder(state_type, dict(given or {}))

    @classmethod
    def of_game(cls, game: Any) -> StateCodec:
        """The codec of a game's states (a :class:`~engines.contract.Game`): the states of its rules
        version, with the game's ``rules`` given back to every decoded state (see :data:`GIVEN`)."""
        return cls(game.state_type, given={"rules": game.rules})

    def encode(self, state: Any) -> bytes:
        """``state`` as bytes (see :func:`encode_state`)."""
        return encode_state(state)

    def decode(self, data: bytes) -> Any:
        """The state encoded in ``data``; raises :class:`SnapshotError` if it is not one of this shape."""
        try:
            tree = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise SnapshotError(f"the snapshot is not JSON: {error}") from None
        return self._decoder(tree, "state")


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return value.hex()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value) if not _is_given(f)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {name: _encode(item) for name, item in zip(value._fields, value, strict=True)}
    if isinstance(value, tuple | list):
        return [_encode(item) for item in value]
    raise SnapshotError(f"cannot encode a {type(value).__name__} in a snapshot")


def _is_record(hint: Any) -> bool:
    return isinstance(hint, type) and (dataclasses.is_dataclass(hint) or hasattr(hint, "_fields"))


def _is_given(field: dataclasses.Field[Any]) -> bool:
    return field.metadata.get("parlour.snapshot") == "given"


def _field_names(cls: type[Any]) -> list[str]:
    """The stored fields of a record class (a dataclass's given fields left out)."""
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if not _is_given(f)]
    return list(cls._fields)


def _given_names(cls: type[Any]) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if _is_given(f)] if dataclasses.is_dataclass(cls) else []


def _decoder(hint: Any, given: dict[str, Any]) -> _Decoder:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(hint, given)
    if origin is tuple:
        return _tuple_decoder(hint, given)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _enum_decoder(hint)
    if hint is bytes:
        return lambda tree, where: bytes.fromhex(_expect(str, tree, where))
    if hint in (bool, int, float, str):
        return lambda tree, where: _expect(hint, tree, where)
    if _is_record(hint):
        return _record_decoder(hint, given)
    raise SnapshotError(f"cannot decode a value of type {hint!r}")


def _expect(kind: type[Any], tree: Any, where: str) -> Any:
    if kind is float and isinstance(tree, int) and not isinstance(tree, bool):
        return float(tree)
    if not isinstance(tree, kind) or (kind is not bool and isinstance(tree, bool)):
        raise SnapshotError(f"{where}: expected {kind.__name__}, found {type(tree).__name__}")
    return tree


def _enum_decoder(kind: type[Enum]) -> _Decoder:
    def decode(tree: Any, where: str) -> Any:
        try:
            return kind(tree)
        except ValueError:
            raise SnapshotError(f"{where}: not a value of {kind.__name__}") from None

    return decode


def _union_decoder(hint: Any, given: dict[str, Any]) -> _Decoder:
    options = typing.get_args(hint)
    concrete = [option for option in options if option is not type(None)]
    if len(concrete) != 1 or type(None) not in options:
        raise SnapshotError(f"cannot decode a value of type {hint!r}: only X | None unions are supported")
    inner = _decoder(concrete[0], given)
    return lambda tree, where: None if tree is None else inner(tree, where)


def _tuple_decoder(hint: Any, given: dict[str, Any]) -> _Decoder:
    args = typing.get_args(hint)
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0], given)
        return lambda tree, where: tuple(item(x, f"{where}[{i}]") for i, x in enumerate(_expect(list, tree, where)))
    items = [_decoder(arg, given) for arg in args]

    def decode(tree: Any, where: str) -> tuple[Any, ...]:
        values = _expect(list, tree, where)
        if len(values) != len(items):
            raise SnapshotError(f"{where}: expected {len(items)} items, found {len(values)}")
        return tuple(item(value, f"{where}[{i}]") for i, (item, value) in enumerate(zip(items, values, strict=True)))

    return decode


def _record_decoder(cls: type[Any], given: dict[str, Any]) -> _Decoder:
    hints = typing.get_type_hints(cls)
    names = _field_names(cls)
    fields = {name: _decoder(hints[name], given) for name in names}
    expected = set(names)
    lacking = [name for name in _given_names(cls) if name not in given]
    if lacking:
        raise SnapshotError(f"{cls.__name__}.{lacking[0]} is not stored in snapshots: give its value to StateCodec")
    constants = {name: given[name] for name in _given_names(cls)}

    def decode(tree: Any, where: str) -> Any:
        stored = _expect(dict, tree, where)
        if stored.keys() != expected:
            missing, unknown = sorted(expected - stored.keys()), sorted(stored.keys() - expected)
            raise SnapshotError(f"{where}: fields do not match (missing {missing}, unknown {unknown})")
        values = {name: field(stored[name], f"{where}.{name}") for name, field in fields.items()}
        return cls(**values, **constants)

    return _shared(decode) if _is_small_value(cls, [hints[name] for name in names]) and not constants else decode


def _is_small_value(cls: type[Any], hints: list[Any]) -> bool:
    """Whether ``cls`` (a record class with fields of these types) is an immutable value made of scalars and
    tuples of scalars only (a card, a land type): equal values of it can be one instance."""
    immutable = hasattr(cls, "_fields") or cls.__dataclass_params__.frozen
    return immutable and all(_is_scalar(h) or _is_scalar_tuple(h) for h in hints)


def _is_scalar(hint: Any) -> bool:
    return hint in (bool, int, float, str) or (isinstance(hint, type) and issubclass(hint, Enum))


def _is_scalar_tuple(hint: Any) -> bool:
    return typing.get_origin(hint) is tuple and all(a is Ellipsis or _is_scalar(a) for a in typing.get_args(hint))


def _shared(decode: _Decoder) -> _Decoder:
    """``decode``, its equal results given as one instance (the first of up to :data:`_SHARED_VALUES` values):
    the cards (or land types) of every state one codec decodes are the same few dozen, so its states share
    them instead of each holding copies (fewer objects to hold, and for the garbage collector to walk)."""
    seen: dict[Any, Any] = {}

    def decode_shared(tree: Any, where: str) -> Any:
        value = decode(tree, where)
        kept = seen.get(value)
        if kept is not None:
            return kept
        if len(seen) < _SHARED_VALUES:
            seen[value] = value
        return value

    return decode_shared


def _shape(hint: Any, seen: tuple[type[Any], ...]) -> str:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return "|".join(sorted(_shape(arg, seen) for arg in typing.get_args(hint)))
    if origin is tuple:
        return "tuple[" + ",".join("..." if a is Ellipsis else _shape(a, seen) for a in typing.get_args(hint)) + "]"
    if isinstance(hint, type) and issubclass(hint, Enum):
        return "enum[" + ",".join(repr(member.value) for member in hint) + "]"
    if _is_record(hint):
        if hint in seen:
            raise SnapshotError(f"recursive state type {hint.__name__} cannot be snapshotted")
        hints = typing.get_type_hints(hint)
        return "{" + ",".join(f"{name}:{_shape(hints[name], (*seen, hint))}" for name in _field_names(hint)) + "}"
    if hint is type(None):
        return "None"
    if isinstance(hint, type):
        return hint.__name__
    raise SnapshotError(f"cannot describe a value of type {hint!r}")
