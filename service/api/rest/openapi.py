"""An OpenAPI 3.1 document of the REST routes, made from the same descriptors the routes come from.

Schemas follow Protobuf's canonical JSON mapping as this server writes it: lowerCamelCase property names,
64-bit integers as decimal strings, enums by name, bytes as base64, ``google.protobuf.Timestamp`` as an
RFC 3339 string, maps as objects. Message schemas allow no other properties (the server refuses unknown
fields). Comments of the .proto files become descriptions when ``comments`` has them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from parlour.v1 import errors_pb2
from service.api.rest.routes import Route
from service.app.bounds import FIELD_BOUNDS

__all__ = ["openapi_document"]

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


class _Schemas:
    """Component schemas, added as messages and enums are referenced."""

    def __init__(self, comments: Mapping[str, str], bounds: Mapping[str, Mapping[str, Any]]) -> None:
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
        properties = {f.json_name: self.field(f) for f in descriptor.fields if f.name not in skip}
        return {"type": "object", "properties": properties, "additionalProperties": False}

    def field(self, field: FieldDescriptor) -> Schema:
        """The schema of one field's JSON value."""
        message = field.message_type
        if message is not None and message.GetOptions().map_entry:
            value = self.field(message.fields_by_name["value"])
            schema: Schema = {"type": "object", "additionalProperties": value}
        else:
            schema = {**self.single(field), **self.bounds.get(field.full_name, {})}  # what the server enforces
            if field.is_repeated:
                schema = {"type": "array", "items": schema}
        return self._described(field.full_name, schema)

    def single(self, field: FieldDescriptor) -> Schema:
        if field.message_type is not None:
            return self.ref(field.message_type)
        if field.enum_type is not None:
            return self.ref(field.enum_type)
        return dict(_SCALARS[field.type])

    def _described(self, name: str, schema: Schema) -> Schema:
        text = self.comments.get(name)
        if not text:
            return schema
        if "$ref" in schema:  # tools written for OpenAPI 3.0 ignore siblings of $ref: wrap it
            return {"allOf": [schema], "description": text}
        return {**schema, "description": text}


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
        + [_parameter(schemas, route, n, "query") for n in route.query_fields],
        "responses": {
            "200": ok,
            "default": {
                "description": "An error: the status and reason come from the table in errors.proto.",
                "content": {"application/json": {"schema": _ERROR_REF}},
            },
        },
        "security": [{}, {"seatToken": []}],
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
    bounds: Mapping[str, Mapping[str, Any]] = FIELD_BOUNDS,
) -> Schema:
    """The OpenAPI 3.1 document of ``routes`` (3.1 for JSON Schema's ``contentMediaType`` and
    ``contentSchema``, which describe the JSON inside each Server-Sent Event). ``comments`` maps full proto
    names (messages, enums, ``Message.field`` and rpcs) to their documentation; it may be empty. ``bounds``
    are the schema keywords of the fields the server bounds (default: those of the default settings)."""
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
            "securitySchemes": {"seatToken": {"type": "http", "scheme": "bearer"}},
        },
    }
