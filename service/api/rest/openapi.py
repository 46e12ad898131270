"""An OpenAPI 3.1 document of the REST routes, made from the same descriptors the routes come from.

Schemas follow Protobuf's canonical JSON mapping as this server writes it: lowerCamelCase property names,
64-bit integers as decimal strings, enums by name, bytes as base64, ``google.protobuf.Timestamp`` as an
RFC 3339 string, maps as objects. Message schemas allow no other properties (the server refuses unknown
fields), and at most one field of each oneof. Comments of the .proto files become descriptions when
``comments`` has them; the bounds the server enforces (``service.app.bounds``) are added to the schemas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from parlour.v1 import errors_pb2
from service.api.rest.routes import Route

__all__ = ["openapi_document", "served_document"]

Schema = dict[str, Any]

_INT32 = {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
_UINT32 = {"type": "integer", "format": "int32", "minimum": 0, "maximum": 2**32 - 1}
_INT64 = {"type": "string", "format": "int64", "pattern": "^-?[0-9]{1,18}$"}
_SCALARS: dict[int, Schema] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number", "format": "float"},
    FieldDescriptor.TYPE_INT32: _INT32,
    FieldDescriptor.TYPE_SINT32: _INT32,
    FieldDescriptor.TYPE_SFIXED32: _INT32,
    FieldDescriptor.TYPE_UINT32: _UINT32,
    FieldDescriptor.TYPE_FIXED32: _UINT32,
    FieldDescriptor.TYPE_INT64: _INT64,
    FieldDescriptor.TYPE_SINT64: _INT64,
    FieldDescriptor.TYPE_SFIXED64: _INT64,
    FieldDescriptor.TYPE_UINT64: {**_INT64, "pattern": "^[0-9]{1,19}$"},
    FieldDescriptor.TYPE_FIXED64: {**_INT64, "pattern": "^[0-9]{1,19}$"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}
_WELL_KNOWN: dict[str, Schema] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?s$"},
}
_ERROR_REF = {"$ref": f"#/components/schemas/{errors_pb2.ErrorDetail.DESCRIPTOR.full_name}"}
#: The calls that need the admin key (``x-parlour-admin-key``), and those that take it (RegisterBot: a
#: name no bot has connected with).
_ADMIN_ONLY = ("parlour.v1.TournamentService.CreateTournament", "parlour.v1.TournamentService.StartTournament")
_ADMIN_OR_NOT = ("parlour.v1.TournamentService.RegisterBot",)
_ADMIN_SERVICE = "parlour.v1.AdminService"
#: Headers a call reads besides the credentials (metadata entries over gRPC).
_HEADERS: dict[str, list[Schema]] = {
    "parlour.v1.BotService.ListAssignments": [
        {
            "name": "X-Parlour-Bot-Key",
            "in": "header",
            "required": True,
            "description": "The bot's secret: the first use of a name registers it (16 to 256 characters).",
            "schema": {"type": "string", "pattern": "^[!-~]{16,256}$"},
        }
    ]
}


class _Schemas:
    """Component schemas, added as messages and enums are referenced."""

    def __init__(self, comments: Mapping[str, str], bounds: Mapping[str, Schema]) -> None:
        self.comments = comments
        self.bounds = bounds
        self.components: dict[str, Schema] = {}

    def ref(self, descriptor: Descriptor | EnumDescriptor) -> Schema:
        name = descriptor.full_name
        if name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[name])
        if name not in self.components:
            self.components[name] = {}  # reserve the name first: messages may refer to themselves
            if isinstance(descriptor, EnumDescriptor):
                self.components[name] = self._described(
                    name, {"type": "string", "enum": list(descriptor.values_by_name)}
                )
            else:
                self.components[name] = self._described(name, self.message(descriptor))
        return {"$ref": f"#/components/schemas/{name}"}

    def message(self, descriptor: Descriptor, *, without: Iterable[str] = ()) -> Schema:
        """The object schema of a message (leaving out the fields named in ``without``)."""
        skip = set(without)
        fields = [f for f in descriptor.fields if f.name not in skip]
        properties = {f.json_name: self.field(f) for f in fields}
        schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
        schema.update(_one_of_each(descriptor, skip))
        bounds = dict(self.bounds.get(descriptor.full_name, {}))
        if "required" in bounds:
            bounds["required"] = [name for name in bounds["required"] if name in properties]
        return {**schema, **{key: value for key, value in bounds.items() if value != []}}

    def field(self, field: FieldDescriptor) -> Schema:
        """The schema of one field's JSON value."""
        message = field.message_type
        if message is not None and message.GetOptions().map_entry:
            value = self.field(message.fields_by_name["value"])
            schema: Schema = {"type": "object", "additionalProperties": value}
        else:
            bounds = self.bounds.get(field.full_name, {})  # what the server enforces
            if field.message_type is not None and "properties" in bounds:
                schema = self.narrowed(field.message_type, bounds)
            else:
                schema = {**self.single(field), **bounds}
            if field.is_repeated:
                schema = {"type": "array", "items": schema}
        return self._described(field.full_name, schema)

    def narrowed(self, descriptor: Descriptor, bounds: Schema) -> Schema:
        """The message's schema written out, not referred to, with its fields narrowed by the schemas in
        ``bounds["properties"]`` (a field's bounds in one place only, such as the clock range of a new game:
        tools may ignore keywords beside a ``$ref``)."""
        schema = self.message(descriptor)
        narrower: Schema = bounds["properties"]
        for field in descriptor.fields:
            extra = narrower.get(field.json_name)
            if extra is None:
                continue
            if field.message_type is not None and "properties" in extra:
                inner = {**self.narrowed(field.message_type, extra), "description": extra.get("description")}
                schema["properties"][field.json_name] = self._described(field.full_name, inner)
            else:
                current = dict(schema["properties"][field.json_name])
                text = " ".join(t for t in (current.pop("description", None), extra.get("description")) if t)
                merged = {**current, **{k: v for k, v in extra.items() if k != "description"}}
                schema["properties"][field.json_name] = {**merged, **({"description": text} if text else {})}
        return {**schema, **{key: value for key, value in bounds.items() if key != "properties"}}

    def single(self, field: FieldDescriptor) -> Schema:
        if field.message_type is not None:
            return self.ref(field.message_type)
        if field.enum_type is not None:
            return self.ref(field.enum_type)
        return dict(_SCALARS[field.type])

    def _described(self, name: str, schema: Schema) -> Schema:
        text = " ".join(t for t in (self.comments.get(name), schema.pop("description", None)) if t)
        if not text:
            return schema
        if "$ref" in schema:  # tools written for OpenAPI 3.0 ignore siblings of $ref: wrap it
            return {"allOf": [schema], "description": text}
        return {**schema, "description": text}


def _one_of_each(descriptor: Descriptor, skip: set[str]) -> Schema:
    """At most one field of each oneof (the server refuses two): ``maxProperties`` when the oneof's fields
    are all the message has, else a ``not`` naming each pair (oneofs of one field, as proto3 ``optional``
    makes, say nothing)."""
    groups = [[f.json_name for f in o.fields if f.name not in skip] for o in descriptor.oneofs]
    groups = [group for group in groups if len(group) > 1]
    if not groups:
        return {}
    if len(groups) == 1 and len(groups[0]) == len([f for f in descriptor.fields if f.name not in skip]):
        return {"maxProperties": 1}
    pairs = [{"required": [a, b]} for group in groups for i, a in enumerate(group) for b in group[i + 1 :]]
    return {"not": {"anyOf": pairs}}


def _parameter(schemas: _Schemas, route: Route, name: str, where: str) -> Schema:
    field = route.method.input_type.fields_by_name[name]
    parameter: Schema = {
        "name": name if where == "path" else field.json_name,
        "in": where,
        "required": where == "path",
        "schema": schemas.field(field),
    }
    if where == "query" and field.is_repeated:
        parameter.update(style="form", explode=True)
    return parameter


def _request_body(schemas: _Schemas, route: Route) -> Schema | None:
    if not route.body:
        return None
    if route.body == "*":
        schema = schemas.message(route.method.input_type, without=route.path_fields)
    else:
        schema = schemas.field(route.method.input_type.fields_by_name[route.body])
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _sse_event(reply: Schema) -> Schema:
    """One event of a stream (OpenAPI before 3.2 describes each event of ``text/event-stream``)."""

    def event(name: str, data: Schema) -> Schema:
        json_data = {"type": "string", "contentMediaType": "application/json", "contentSchema": data}
        return {
            "type": "object",
            "properties": {"event": {"type": "string", "enum": [name]}, "id": {"type": "string"}, "data": json_data},
        }

    return {"anyOf": [event("message", reply), event("end", {"type": "object"}), event("failure", _ERROR_REF)]}


def _security(route: Route) -> list[Schema]:
    """Who may call: anyone (seat tokens for the calls acting for a seat), or only with the admin key."""
    name = route.method.full_name
    if name in _ADMIN_ONLY or route.method.containing_service.full_name == _ADMIN_SERVICE:
        return [{"adminKey": []}]
    if name in _ADMIN_OR_NOT:
        return [{}, {"adminKey": []}]
    return [{}, {"seatToken": []}]


def _operation(schemas: _Schemas, route: Route) -> Schema:
    reply = schemas.ref(route.method.output_type)
    if route.server_streaming:
        ok = {
            "description": "Server-Sent Events: each `data:` is one reply in JSON, `id:` its version; "
            "send `Last-Event-ID` to resume after it. `event: end` closes the stream; `event: failure` "
            "carries an ErrorDetail when the stream fails after it started.",
            "content": {"text/event-stream": {"schema": _sse_event(reply)}},
        }
    else:
        ok = {"description": "OK", "content": {"application/json": {"schema": reply}}}
    operation: Schema = {
        "operationId": route.method.name,
        "tags": [route.method.containing_service.name],
        "parameters": [_parameter(schemas, route, n, "path") for n in route.path_fields]
        + [_parameter(schemas, route, n, "query") for n in route.query_fields]
        + [dict(header) for header in _HEADERS.get(route.method.full_name, [])],
        "responses": {
            "200": ok,
            "414": {
                "description": "request/uri_too_long: the request line (path and query) is over 8 KiB.",
                "content": {"application/json": {"schema": _ERROR_REF}},
            },
            "431": {
                "description": "request/headers_too_large: a header line is over 8 KiB.",
                "content": {"application/json": {"schema": _ERROR_REF}},
            },
            "default": {
                "description": "An error: the status and reason come from the table in errors.proto (a "
                "request the HTTP parser cannot read too: request/invalid).",
                "content": {"application/json": {"schema": _ERROR_REF}},
            },
        },
        "security": _security(route),
    }
    summary = schemas.comments.get(route.method.full_name)
    if summary:
        operation["description"] = summary
        operation["summary"] = summary.split(". ")[0].rstrip(".")
    body = _request_body(schemas, route)
    if body is not None:
        operation["requestBody"] = body
    return operation


def openapi_document(
    routes: Iterable[Route],
    *,
    title: str,
    version: str,
    comments: Mapping[str, str],
    bounds: Mapping[str, Schema],
) -> Schema:
    """The OpenAPI 3.1 document of ``routes`` (3.1 for JSON Schema's ``contentMediaType`` and
    ``contentSchema``, which describe the JSON inside each Server-Sent Event). ``comments`` maps full proto
    names (messages, enums, ``Message.field`` and rpcs) to their documentation; it may be empty. ``bounds``
    maps full proto names of fields and messages to the JSON Schema keywords of what the server takes
    (see ``service.app.bounds.request_bounds``)."""
    schemas = _Schemas(comments, bounds)
    schemas.ref(errors_pb2.ErrorDetail.DESCRIPTOR)
    paths: dict[str, Schema] = {}
    for route in routes:
        paths.setdefault(route.template, {})[route.verb.lower()] = _operation(schemas, route)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": "Parlour's REST/JSON API, generated from the gRPC service's google.api.http "
            "annotations. Bodies use Protobuf's canonical JSON mapping; acting for a seat needs "
            "`Authorization: Bearer <seat token>`.",
        },
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.components.items())),
            "securitySchemes": {
                "seatToken": {"type": "http", "scheme": "bearer"},
                "adminKey": {"type": "apiKey", "in": "header", "name": "X-Parlour-Admin-Key"},
            },
        },
    }


def served_document() -> Schema:
    """The document of a server that serves every service of the wire contract with the default limits
    (what ``/openapi.json`` answers with ``parlour serve``'s defaults): for the documentation site."""
    import importlib
    from pathlib import PurePosixPath

    from google.protobuf import descriptor_pool

    from service.api.descriptors import documented_files
    from service.api.rest.comments import proto_comments
    from service.api.rest.routes import routes_of
    from service.app.bounds import request_bounds
    from service.app.time_control import ClockRange

    for file in documented_files():  # the generated module of each file puts its services in the pool
        importlib.import_module(f"{file.package}.{PurePosixPath(file.name).stem}_pb2")
    pool = descriptor_pool.Default()
    routes = [
        route
        for file in documented_files()
        for service in file.service
        for route in routes_of(pool.FindServiceByName(f"{file.package}.{service.name}"))
    ]
    return openapi_document(
        routes, title="Parlour", version="v1", comments=proto_comments(), bounds=request_bounds(ClockRange())
    )
