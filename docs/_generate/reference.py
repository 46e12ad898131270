"""MkDocs hook: the reference pages made at build time from the project's own sources, so nothing in them is
copied by hand and nothing can drift: every RPC, message, field and enum with the comments of the .proto
files (``parlour/v1/descriptors.binpb``, compiled with their comments), the error table, the OpenAPI
document the server serves (rendered with a packaged copy of Swagger UI), and the ``--help`` of every
command of the ``parlour`` CLI."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

_PACKAGE = "parlour.v1"
_LABEL = {1: "optional", 2: "required", 3: "repeated"}
_SCALARS = {
    1: "double",
    2: "float",
    3: "int64",
    4: "uint64",
    5: "int32",
    8: "bool",
    9: "string",
    12: "bytes",
    13: "uint32",
    17: "sint32",
    18: "sint64",
    6: "fixed64",
    7: "fixed32",
    15: "sfixed32",
    16: "sfixed64",
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages (and Swagger UI's files) to the site."""
    for path, content in _pages().items():
        files.append(File.generated(config, path, content=content))
    for path, data in _swagger_ui().items():
        files.append(File.generated(config, path, content=data))
    return files


def _pages() -> dict[str, str]:
    from service.api.descriptors import documented_files

    ours = [f for f in documented_files() if f.package == _PACKAGE]
    types = _Types(ours)
    pages = {f"reference/api/{Path(f.name).stem}.md": _proto_page(f, types) for f in ours}
    pages["reference/api/index.md"] = _api_index(ours)
    pages["reference/cli.md"] = _cli_page()
    pages["reference/errors.md"] = _errors_page(next(f for f in ours if f.name.endswith("/errors.proto")))
    pages["reference/rules.md"] = _rules_page()
    pages["reference/openapi/openapi.json"] = json.dumps(_openapi(), indent=1)
    return pages


# --- the .proto files ---------------------------------------------------------------------------------


class _Comments:
    """The comments of one file's elements, by source path."""

    def __init__(self, file: descriptor_pb2.FileDescriptorProto) -> None:
        self._by_path = {tuple(location.path): location for location in file.source_code_info.location}

    def of(self, *path: int) -> str:
        location = self._by_path.get(tuple(path))
        if location is None:
            return ""
        text = location.leading_comments or location.trailing_comments
        return "\n".join(line.removeprefix(" ") for line in text.strip("\n").splitlines()).strip()


class _Types:
    """Where each message and enum of the contract is documented (its page and anchor), and map entries."""

    def __init__(self, files: list[descriptor_pb2.FileDescriptorProto]) -> None:
        self.pages: dict[str, str] = {}
        self.maps: dict[str, descriptor_pb2.DescriptorProto] = {}
        for file in files:
            stem = Path(file.name).stem
            for message in file.message_type:
                self._add_message(message, f"{file.package}.{message.name}", stem)
            for enum in file.enum_type:
                self.pages[f"{file.package}.{enum.name}"] = stem

    def _add_message(self, message: descriptor_pb2.DescriptorProto, name: str, stem: str) -> None:
        if message.options.map_entry:
            self.maps[name] = message
            return
        self.pages[name] = stem
        for nested in message.nested_type:
            self._add_message(nested, f"{name}.{nested.name}", stem)
        for enum in message.enum_type:
            self.pages[f"{name}.{enum.name}"] = stem

    def link(self, field: descriptor_pb2.FieldDescriptorProto, here: str) -> str:
        """The field's type, linked to where it is documented (``map<K, V>`` for a map)."""
        if not field.type_name:
            return f"`{_SCALARS.get(field.type, str(field.type))}`"
        name = field.type_name.lstrip(".")
        if name in self.maps:
            key, value = self.maps[name].field
            return f"map<{self.link(key, here)}, {self.link(value, here)}>"
        if name not in self.pages:
            return f"`{name}`"
        short = name.removeprefix(_PACKAGE + ".")
        page = "" if self.pages[name] == here else f"{self.pages[name]}.md"
        return f"[`{short}`]({page}#{short.lower().replace('.', '')})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _proto_page(file: descriptor_pb2.FileDescriptorProto, types: _Types) -> str:
    comments = _Comments(file)
    here = Path(file.name).stem
    lines = [f"# {Path(file.name).name}", ""]
    header = comments.of(12) or comments.of(2)  # the syntax or package statement's leading comment
    if header:
        lines += [header, ""]
    for s, service in enumerate(file.service):
        lines += [f"## {service.name}", "", comments.of(6, s), ""]
        for m, method in enumerate(service.method):
            stream_in = "stream " if method.client_streaming else ""
            stream_out = "stream " if method.server_streaming else ""
            request, reply = (
                t.lstrip(".").removeprefix(_PACKAGE + ".") for t in (method.input_type, method.output_type)
            )
            lines += [f"### {service.name}.{method.name}", ""]
            lines += [f"`rpc {method.name}({stream_in}{request}) returns ({stream_out}{reply})`", ""]
            http = _http_rule(method)
            if http:
                lines += [f"REST: `{http}`", ""]
            lines += [comments.of(6, s, 2, m), ""]
    for m, message in enumerate(file.message_type):
        lines += _message(message, comments, (4, m), message.name, types=types, here=here)
    for e, enum in enumerate(file.enum_type):
        lines += _enum(enum, comments, (5, e), enum.name)
    return "\n".join(lines) + "\n"


def _http_rule(method: descriptor_pb2.MethodDescriptorProto) -> str:
    from google.api import annotations_pb2

    if not method.options.HasExtension(annotations_pb2.http):
        return ""
    rule = method.options.Extensions[annotations_pb2.http]
    verb = rule.WhichOneof("pattern")
    return f"{verb.upper()} {getattr(rule, verb)}" if verb else ""


def _message(
    message: descriptor_pb2.DescriptorProto,
    comments: _Comments,
    path: tuple[int, ...],
    name: str,
    *,
    types: _Types,
    here: str,
) -> list[str]:
    lines = [f"### {name}", "", comments.of(*path), ""]
    if message.field:
        lines += ["| field | type | number | description |", "|---|---|---|---|"]
        for f, field in enumerate(message.field):
            is_map = field.type_name.lstrip(".") in types.maps
            label = "repeated " if field.label == 3 and not is_map else ""
            oneof = (
                f" (oneof `{message.oneof_decl[field.oneof_index].name}`)"
                if field.HasField("oneof_index") and not field.proto3_optional
                else ""
            )
            lines.append(
                f"| `{field.name}` | {label}{types.link(field, here)} | {field.number} | "
                f"{_cell(comments.of(*path, 2, f))}{oneof} |"
            )
        lines.append("")
    for n, nested in enumerate(message.nested_type):
        if not nested.options.map_entry:
            lines += _message(nested, comments, (*path, 3, n), f"{name}.{nested.name}", types=types, here=here)
    for e, enum in enumerate(message.enum_type):
        lines += _enum(enum, comments, (*path, 4, e), f"{name}.{enum.name}")
    return lines


def _enum(enum: descriptor_pb2.EnumDescriptorProto, comments: _Comments, path: tuple[int, ...], name: str) -> list[str]:
    lines = [f"### {name}", "", comments.of(*path), "", "| value | number | description |", "|---|---|---|"]
    for v, value in enumerate(enum.value):
        lines.append(f"| `{value.name}` | {value.number} | {_cell(comments.of(*path, 2, v))} |")
    return [*lines, ""]


def _api_index(files: list[descriptor_pb2.FileDescriptorProto]) -> str:
    lines = [
        "# API reference",
        "",
        "Generated from the `.proto` files of `proto/parlour/v1/` and their comments when this site is built.",
        "Every RPC is also served as REST/JSON (Protobuf's canonical JSON mapping) on the route its",
        "`google.api.http` annotation gives; server streams are Server-Sent Events. The error reasons are in",
        "[errors.proto](errors.md).",
        "",
        "| file | services | messages |",
        "|---|---|---|",
    ]
    for file in files:
        stem = Path(file.name).stem
        services = ", ".join(s.name for s in file.service) or "-"
        lines.append(f"| [{Path(file.name).name}]({stem}.md) | {services} | {len(file.message_type)} |")
    return "\n".join(lines) + "\n"


def _errors_page(file: descriptor_pb2.FileDescriptorProto) -> str:
    table = _Comments(file).of(12)
    return "\n".join(
        [
            "# Errors",
            "",
            "Generated from `proto/parlour/v1/errors.proto`, the one table both transports follow.",
            "",
            table,
            "",
            "The body of an HTTP error, and the details of a gRPC one, is an",
            "[`ErrorDetail`](api/errors.md#errordetail).",
            "",
        ]
    )


def _rules_page() -> str:
    from engines.registry import REGISTRY

    lines = [
        "# Rules of the games",
        "",
        "Every rules version this installation holds, from the registry (`engines/registry.py`), with the data",
        "files and rule flags that decide it and its fingerprint (`tests/golden/versions.json` keeps the",
        "released ones). The full rules of each game, with every judgement call, are in",
        "[Old Men of the Forest](rules/old-men-of-the-forest.md), [Verräter](rules/verraeter.md) and",
        "[Libertalia: Winds of Galecrest](rules/libertalia-galecrest.md).",
        "",
    ]
    for name in REGISTRY.names():
        current = REGISTRY.current(name)
        assert current is not None
        spec = current.spec
        lines += [f"## {spec.title} (`{name}`)", "", f"{spec.min_seats} to {spec.max_seats} players.", ""]
        if spec.options:
            lines += ["| option | values | default | what it does |", "|---|---|---|---|"]
            lines += [
                f"| `{o.name}` | {', '.join(f'`{v}`' for v in o.allowed)} | `{o.default}` | {_cell(o.description)} |"
                for o in spec.options
            ]
            lines.append("")
        lines += ["| rules version | data files | flags | fingerprint |", "|---|---|---|---|"]
        for game in REGISTRY.versions(name):
            version = game.rules.version
            files = ", ".join(f"`engines/{f.path}`" for f in version.files) or "-"
            flags = ", ".join(f"`{k}={v}`" for k, v in version.flags) or "-"
            mark = " (current)" if game is current else ""
            lines.append(f"| `{version.name}`{mark} | {files} | {flags} | `{version.fingerprint()[:16]}` |")
        lines.append("")
    return "\n".join(lines) + "\n"


# --- the CLI ------------------------------------------------------------------------------------------


def _cli_page() -> str:
    from parlour.cli.main import build_parser

    lines = [
        "# Command line",
        "",
        "The `--help` of every command of `parlour` (the SDK's CLI and the server's",
        "`parlour serve`), as the installed packages print it.",
        "",
    ]
    for name, parser in _walk(build_parser(), "parlour"):
        lines += [f"## `{name}`", "", "```text", _help(parser), "```", ""]
    return "\n".join(lines) + "\n"


def _walk(parser: argparse.ArgumentParser, name: str) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(name, parser)]
    for action in parser._actions:  # argparse keeps sub-parsers here and nowhere public
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                found += _walk(child, f"{name} {sub}")
    return found


def _help(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=100)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        parser.print_help()
    return out.getvalue().rstrip()


# --- OpenAPI and Swagger UI ---------------------------------------------------------------------------


def _openapi() -> dict[str, Any]:
    from service.api.rest.openapi import served_document

    return served_document()


def _swagger_ui() -> dict[str, bytes | str]:
    from service.api.rest.docs import SWAGGER_FILES, swagger_file, swagger_page

    files: dict[str, bytes | str] = {f"reference/openapi/{name}": swagger_file(name) for name in SWAGGER_FILES}
    files["reference/openapi/index.html"] = swagger_page("openapi.json")
    return files
