"""HTTP routes read from the ``google.api.http`` options of a gRPC service, and the decoding of an HTTP
request into the call's request message.

Supported: the five verbs (``get``, ``post``, ``put``, ``patch``, ``delete``); path templates whose variables
are ``{field}`` or ``{field=*}`` naming a top-level field of the request, with a literal verb suffix
(``/v1/games/{game_id}:watch``); ``body: "*"`` (every field not in the path comes from the JSON body), a body
naming one message field, or no body (every field not in the path is a query parameter). Query parameters
are top-level scalar, enum and repeated scalar fields, named by their JSON name (``fromVersion``) or their
proto name (``from_version``). Anything else in an annotation is refused when the routes are built, so a
route never silently differs from its annotation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.api import annotations_pb2, http_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message

from service.api.rest.fields import check_values
from service.app.errors import ServiceError

__all__ = ["Route", "decode_request", "routes_of"]

_VERBS = ("get", "post", "put", "patch", "delete")
_VARIABLE = re.compile(r"\{([a-z_][a-z0-9_]*)(?:=\*)?\}")
#: What a path variable matches: one segment, without the ``:`` that starts a verb suffix.
_SEGMENT = "[^/:]+"


@dataclass(frozen=True)
class Route:
    """One HTTP route of one rpc."""

    #: The rpc, e.g. ``GameService.GetView``.
    method: MethodDescriptor
    #: Upper-case HTTP verb.
    verb: str
    #: The annotation's path template, e.g. ``/v1/games/{game_id}/view``.
    template: str
    #: Request fields bound by the path, in template order (proto names).
    path_fields: tuple[str, ...]
    #: ``"*"``, a field name, or ``""`` (no body).
    body: str
    #: Request fields that travel as query parameters (proto names).
    query_fields: tuple[str, ...]

    @property
    def server_streaming(self) -> bool:
        """Whether the rpc streams its replies (served as Server-Sent Events)."""
        return bool(self.method.server_streaming)

    @property
    def aiohttp_path(self) -> str:
        """The template in aiohttp's syntax, each variable matching one segment without ``:``."""
        return _VARIABLE.sub(lambda m: "{" + m.group(1) + ":" + _SEGMENT + "}", self.template)

    @property
    def request_type(self) -> type[Message]:
        """The generated class of the request message."""
        return message_factory.GetMessageClass(self.method.input_type)


def routes_of(service: ServiceDescriptor) -> list[Route]:
    """Every route of ``service`` (one per annotated rpc; additional_bindings included). Raises
    ValueError naming the rpc whose annotation uses something this gateway does not support."""
    routes: list[Route] = []
    for method in service.methods:
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            continue
        rule = options.Extensions[annotations_pb2.http]
        for binding in (rule, *rule.additional_bindings):
            routes.append(_route(method, binding))
    return routes


def _route(method: MethodDescriptor, rule: http_pb2.HttpRule) -> Route:
    pattern = rule.WhichOneof("pattern")
    if pattern not in _VERBS:
        raise ValueError(f"{method.full_name}: HTTP pattern {pattern!r} is not supported")
    template = getattr(rule, pattern)
    fields = method.input_type.fields_by_name
    path_fields = tuple(_VARIABLE.findall(template))
    leftover = _VARIABLE.sub("", template)
    if "{" in leftover or "}" in leftover:
        raise ValueError(f"{method.full_name}: only {{field}} path variables are supported in {template!r}")
    for name in path_fields:
        if name not in fields or fields[name].message_type is not None or _is_repeated(fields[name]):
            raise ValueError(f"{method.full_name}: path variable {name!r} is not a scalar field of the request")
    body = rule.body
    if body not in ("", "*") and (body not in fields or fields[body].message_type is None):
        raise ValueError(f"{method.full_name}: body {body!r} is not a message field of the request")
    query: tuple[str, ...] = ()
    if body != "*":
        query = tuple(
            f.name for f in method.input_type.fields if f.name not in path_fields and f.name != body and _is_query(f)
        )
    return Route(method, pattern.upper(), template, path_fields, body, query)


def _is_repeated(field: FieldDescriptor) -> bool:
    return field.is_repeated


def _is_query(field: FieldDescriptor) -> bool:
    """Scalars, enums and repeated scalars; not messages or maps."""
    return field.message_type is None


# --- decoding ---------------------------------------------------------------------------------------


def _invalid(message: str) -> ServiceError:
    return ServiceError("request/invalid", message)


def decode_request(route: Route, path: Mapping[str, str], query: Mapping[str, list[str]], body: bytes) -> Message:
    """The request message of ``route`` from the path variables, the query parameters (each name with
    all its values) and the raw body. Raises ServiceError ``request/invalid`` naming what is wrong: a body
    that is not a JSON object of the request's fields, a query parameter the call does not take, a value
    of the wrong type."""
    values: dict[str, Any] = _body_values(route, body)
    fields = route.method.input_type.fields_by_name
    for name in route.path_fields:
        _drop(values, fields[name])
        values[fields[name].json_name] = path[name]
    values.update(_query_values(route, query))
    check_values(route.method.input_type, values)
    message = route.request_type()
    try:
        json_format.ParseDict(values, message)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:  # what check_values let by
        name = route.method.input_type.name
        raise _invalid(f"the request does not fit {name}; /openapi.json describes its fields") from error
    return message


def _body_values(route: Route, body: bytes) -> dict[str, Any]:
    if not route.body:
        if body.strip():
            raise _invalid(f"{route.verb} {route.template} takes no body; send the fields as query parameters")
        return {}
    try:
        parsed = json.loads(body) if body.strip() else {}
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise _invalid(f"the body is not valid JSON (the first problem is at {where}); send one JSON object") from error
    except UnicodeDecodeError as error:
        raise _invalid("the body is not text in UTF-8; send one JSON object in UTF-8") from error
    except (ValueError, RecursionError) as error:
        raise _invalid(
            "the body is not JSON this server can read (nested too deeply?); send one JSON object"
        ) from error
    if not isinstance(parsed, dict):
        raise _invalid("the body must be a JSON object")
    if route.body == "*":
        return parsed
    field = route.method.input_type.fields_by_name[route.body]
    return {field.json_name: parsed}


def _drop(values: dict[str, Any], field: FieldDescriptor) -> None:
    """Remove a field given in the body under either of its names (the path value wins)."""
    values.pop(field.name, None)
    values.pop(field.json_name, None)


def _query_values(route: Route, query: Mapping[str, list[str]]) -> dict[str, Any]:
    descriptor: Descriptor = route.method.input_type
    by_name = {descriptor.fields_by_name[n].json_name: n for n in route.query_fields}
    by_name.update({n: n for n in route.query_fields})
    values: dict[str, Any] = {}
    for key, given in query.items():
        name = by_name.get(key)
        if name is None:
            takes = ", ".join(descriptor.fields_by_name[n].json_name for n in route.query_fields) or "none"
            raise _invalid(f"{route.verb} {route.template} takes no query parameter {key[:40]!r} (it takes: {takes})")
        field = descriptor.fields_by_name[name]
        converted = [_scalar(field, value) for value in given]
        if _is_repeated(field):
            values[field.json_name] = converted
        elif len(converted) > 1:
            raise _invalid(f"query parameter {key[:40]!r} is given {len(converted)} times; it takes one value")
        else:
            values[field.json_name] = converted[0]
    return values


def _scalar(field: FieldDescriptor, text: str) -> Any:
    """A query string value as the JSON value the canonical mapping expects (ParseDict checks the rest)."""
    if field.type == FieldDescriptor.TYPE_BOOL:
        if text not in ("true", "false"):
            raise _invalid(f"query parameter {field.json_name!r} must be true or false, not {text[:40]!r}")
        return text == "true"
    if field.type == FieldDescriptor.TYPE_ENUM and text.isascii() and text.lstrip("-").isdigit():
        return int(text)
    return text
