"""The OpenAPI document matches the routes the server serves, and a schema-driven fuzzer finds no 500."""

from __future__ import annotations

import random
from typing import Any

import pytest
import requests
import schemathesis
from openapi_spec_validator import validate
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from parlour.v1 import admin_service_pb2, bot_service_pb2, game_service_pb2, replay_service_pb2, tournament_service_pb2
from service.api.rest.comments import proto_comments
from service.api.rest.openapi import openapi_document
from service.api.rest.routes import routes_of
from tests.rest.harness import RunningServer

_NOT_API = {"/openapi.json", "/metrics", "/readyz", "/", "/{path}"}  # operations and the page, not the API

#: Every service the server offers over REST, as bootstrap passes them to the gateway.
_SERVICES = [
    game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
    replay_service_pb2.DESCRIPTOR.services_by_name["ReplayService"],
    bot_service_pb2.DESCRIPTOR.services_by_name["BotService"],
    tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"],
    admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"],
]


def _document(server: RunningServer) -> dict[str, Any]:
    reply = requests.get(server.http_url + "/openapi.json", timeout=10)
    assert reply.status_code == 200
    assert reply.headers["Content-Type"].startswith("application/json")
    return reply.json()  # type: ignore[no-any-return]


def test_the_document_lists_exactly_the_routes_served(server: RunningServer) -> None:
    document = _document(server)
    documented = {(verb.upper(), path) for path, ops in document["paths"].items() for verb in ops}
    served = {
        (route.method, route.resource.canonical)
        for route in server.app.http.app.router.routes()
        if route.method != "HEAD" and route.resource is not None and route.resource.canonical not in _NOT_API
    }
    assert documented == served
    rpcs = {m.name for service in _SERVICES for m in service.methods if m.name != "Connect"}
    assert {op["operationId"] for ops in document["paths"].values() for op in ops.values()} == rpcs


def test_every_documented_route_answers_with_its_own_errors_not_a_missing_route(server: RunningServer) -> None:
    for path, operations in _document(server)["paths"].items():
        for verb in operations:
            url = server.http_url + path.replace("{game_id}", "nosuchgame")
            reply = requests.request(verb, url, json={} if verb == "post" else None, timeout=10)
            assert reply.json().get("reason") not in ("http/not_found", "http/method_not_allowed"), (verb, path)
            assert reply.status_code < 500


def test_the_served_document_is_valid_openapi_3_1(server: RunningServer) -> None:
    """The document declares the version whose keywords it uses (contentMediaType/contentSchema are 3.1's
    JSON Schema), and the specification's own validator accepts it."""
    document = _document(server)
    assert document["openapi"].startswith("3.1.")
    validate(document)  # raises on the first violation of the OpenAPI 3.1 schema


def test_descriptions_come_from_the_proto_comments(server: RunningServer) -> None:
    document = _document(server)
    create = document["paths"]["/v1/games"]["post"]
    assert "Create a game" in create["description"]
    seed = create["requestBody"]["content"]["application/json"]["schema"]["properties"]["seed"]
    assert seed["format"] == "byte"
    assert "seed" in seed["description"]


@pytest.fixture(scope="session")
def finished_game(server: RunningServer) -> str:
    """A finished game's id (its watch stream ends, so the fuzzer's calls all return)."""
    import asyncio

    import aiohttp

    from tests.rest.harness import JsonClient
    from tests.rest.play import create_with_seats, play_to_end

    async def make() -> str:
        async with aiohttp.ClientSession() as session:
            api = JsonClient(session, server.http_url)
            game_id, tokens = await create_with_seats(api, "oldmen", 3)
            await play_to_end(api, game_id, tokens, random.Random(11))
            return game_id

    return asyncio.run(make())


def _generated_document() -> dict[str, Any]:
    """The document the server serves, made here without a server so the fuzzer's tests can be collected."""
    routes = [route for service in _SERVICES for route in routes_of(service)]
    return openapi_document(routes, title="Parlour", version="v1", comments=proto_comments())


def test_the_served_document_is_the_generated_one(server: RunningServer) -> None:
    assert _document(server) == _generated_document()


schema = schemathesis.openapi.from_dict(_generated_document())


@schema.parametrize()
def test_no_input_makes_the_server_fail(case: Any, server: RunningServer, finished_game: str) -> None:
    if "game_id" in (case.path_parameters or {}) and random.Random(repr(case.path_parameters)).random() < 0.5:
        case.path_parameters["game_id"] = finished_game
    case.call_and_validate(
        base_url=server.http_url,
        checks=[not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance],
        timeout=10,
    )
