"""The OpenAPI document matches the routes the server serves, and a schema-driven fuzzer finds no 500 and
no request the document allows that the server refuses for its shape."""

from __future__ import annotations

import base64
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import settings
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from schemathesis import Config as SchemathesisConfig
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from parlour.v1 import admin_service_pb2, bot_service_pb2, game_service_pb2, replay_service_pb2, tournament_service_pb2
from service.api.rest.comments import proto_comments
from service.api.rest.openapi import openapi_document
from service.api.rest.routes import routes_of
from service.app.bounds import MAX_SEATS, request_bounds
from service.app.time_control import ClockRange
from service.config import Settings
from tests.rest.conftest import ADMIN_KEY
from tests.rest.harness import RunningServer, server_in_thread

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
    return reply.json()  # type: ignore[no-any-return]  # decoded JSON is Any


def test_the_document_lists_exactly_the_routes_served(server: RunningServer) -> None:
    document = _document(server)
    documented = {(verb.upper(), path) for path, ops in document["paths"].items() for verb in ops}
    served = {
        (route.method, route.resource.canonical)
        for route in server.app.http.app.router.routes()
        if route.method != "HEAD"
        and route.resource is not None
        and route.resource.canonical not in _NOT_API
        and not route.resource.canonical.startswith("/docs")  # the document itself, rendered
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


@pytest.fixture(scope="session")
def open_game(server: RunningServer) -> str:
    """A game of the most seats any game has, none of them claimed (the fuzzer claims them)."""
    body = {"game": "libertalia", "seats": MAX_SEATS}
    reply = requests.post(server.http_url + "/v1/games", json=body, timeout=10)
    return str(reply.json()["game"]["gameId"])


def _request_schema(document: dict[str, Any], path: str, verb: str) -> Draft202012Validator:
    """A validator of the JSON body of an operation, resolving the document's references."""
    resource = Resource(contents=document, specification=DRAFT202012)
    pointer = "/".join(("#/paths", path.replace("~", "~0").replace("/", "~1"), verb, "requestBody/content"))
    schema = {"$ref": "urn:parlour-openapi" + pointer + "/application~1json/schema"}
    return Draft202012Validator(schema, registry=Registry().with_resource("urn:parlour-openapi", resource))


#: Request bodies of CreateGame at the edges of what the server takes: each is taken (True) or refused
#: with 400 (False), and the document says the same.
_CREATE_GAME_EDGES: list[tuple[dict[str, Any], bool]] = [
    ({"game": "oldmen", "seats": 3}, True),
    ({"game": "oldmen"}, False),
    ({"seats": 3}, False),
    ({"game": "oldmen", "seats": -1}, False),
    ({"game": "oldmen", "seats": 5}, False),
    ({"game": "libertalia", "seats": 6}, True),
    ({"game": "libertalia", "seats": 7}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "1000"}}, True),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "3600000"}}, True),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "999"}}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "1"}}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "3600001"}}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "9999999"}}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {}}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "1000", "bankMs": "86400000"}}, True),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "1000", "bankMs": "86400001"}}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "1000", "bankMs": "99999999"}}, False),
    ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "1000", "incrementMs": "99999999"}}, False),
    ({"game": "oldmen", "seats": 3, "options": {"match_deals": "2"}}, True),
    ({"game": "oldmen", "seats": 3, "options": {"match_deals": "3"}}, False),
    ({"game": "oldmen", "seats": 3, "options": {"board": "calm"}}, False),
    ({"game": "oldmen", "seats": 3, "seed": base64.b64encode(bytes(16)).decode()}, True),
    ({"game": "oldmen", "seats": 3, "seed": base64.b64encode(bytes(256)).decode()}, True),
    ({"game": "oldmen", "seats": 3, "seed": base64.b64encode(bytes(15)).decode()}, False),
    ({"game": "oldmen", "seats": 3, "seed": base64.b64encode(bytes(257)).decode()}, False),
    ({"game": "oldmen", "seats": 3, "seed": ""}, False),
    ({"game": "oldmen", "seats": 3, "houseBots": [{"seat": 2, "strategy": "greedy"}]}, True),
    ({"game": "oldmen", "seats": 3, "houseBots": [{"strategy": "random"}, {"seat": 1, "strategy": "random"}]}, True),
    ({"game": "oldmen", "seats": 3, "houseBots": [{"seat": 3, "strategy": "greedy"}]}, False),
    ({"game": "oldmen", "seats": 3, "houseBots": [{"seat": 1, "strategy": "greedy"}] * 2}, False),
    ({"game": "oldmen", "seats": 3, "houseBots": [{"strategy": "greedy"}, {"seat": 0, "strategy": "random"}]}, False),
    ({"game": "oldmen", "seats": 3, "houseBots": [{"seat": 1}]}, False),
]

#: ClaimSeat bodies: taken, or refused with 400, as the document says.
_CLAIM_SEAT_EDGES: list[tuple[dict[str, Any], bool]] = [
    ({"playerName": "Zoë"}, True),
    ({"playerName": "x" * 64}, True),
    ({"playerName": "a b"}, True),
    ({"playerName": "x" * 65}, False),
    ({"playerName": " "}, False),
    ({"playerName": "\u0000"}, False),
    ({"playerName": ""}, False),
    ({}, False),
    ({"playerName": "p", "seat": -1}, False),
]


@pytest.mark.parametrize(("body", "taken"), _CREATE_GAME_EDGES)
def test_the_document_and_the_server_agree_on_creating_a_game(
    server: RunningServer, body: dict[str, Any], taken: bool
) -> None:
    documented = _request_schema(_document(server), "/v1/games", "post").is_valid(body)
    reply = requests.post(server.http_url + "/v1/games", json=body, timeout=10)
    assert (documented, reply.status_code) == (taken, 200 if taken else 400), reply.text


@pytest.mark.parametrize(("body", "taken"), _CLAIM_SEAT_EDGES)
def test_the_document_and_the_server_agree_on_claiming_a_seat(
    server: RunningServer, body: dict[str, Any], taken: bool
) -> None:
    game = requests.post(server.http_url + "/v1/games", json={"game": "oldmen", "seats": 3}, timeout=10).json()
    documented = _request_schema(_document(server), "/v1/games/{game_id}/seats", "post").is_valid(body)
    url = f"{server.http_url}/v1/games/{game['game']['gameId']}/seats"
    reply = requests.post(url, json=body, timeout=10)
    assert (documented, reply.status_code) == (taken, 200 if taken else 400), reply.text


def test_a_seat_the_game_does_not_have_is_documented_and_not_found(server: RunningServer, finished_game: str) -> None:
    """Seats and versions a game has depend on the game: the document allows every seat some game has,
    and a seat or version this game lacks is 404 (a state the fuzzer may meet), not 400."""
    seat = next(
        p for p in _document(server)["paths"]["/v1/games/{game_id}/events"]["get"]["parameters"] if p["name"] == "seat"
    )
    assert (seat["schema"]["minimum"], seat["schema"]["maximum"]) == (0, MAX_SEATS - 1)
    for query, reason in (({"seat": MAX_SEATS - 1}, "seat/not_found"), ({"atVersion": "100000"}, "version/not_found")):
        reply = requests.get(f"{server.http_url}/v1/games/{finished_game}/view", params=query, timeout=10)
        assert (reply.status_code, reply.json()["reason"]) == (404, reason)
    reply = requests.get(f"{server.http_url}/v1/games/{finished_game}/events", params={"seat": -1}, timeout=10)
    assert reply.status_code == 400


def test_the_document_states_the_clock_range_of_the_server_it_comes_from(tmp_path: Path) -> None:
    """The time per move is a flag of the server: the document it serves takes that server's range."""
    with server_in_thread(tmp_path, min_move_ms=5000, max_move_ms=60_000) as narrow:
        document = _document(narrow)
        clock = _request_schema(document, "/v1/games", "post")
        for move_ms, taken in (("4999", False), ("5000", True), ("60000", True), ("60001", False)):
            body = {"game": "oldmen", "seats": 3, "timeControl": {"moveMs": move_ms}}
            reply = requests.post(narrow.http_url + "/v1/games", json=body, timeout=10)
            assert (clock.is_valid(body), reply.status_code) == (taken, 200 if taken else 400), move_ms
        create = document["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"]["schema"]
        move = create["properties"]["timeControl"]["properties"]["moveMs"]
        assert "5000 to 60000 (--min-move-ms, --max-move-ms)" in move["description"]


def _generated_document() -> dict[str, Any]:
    """The document the server serves, made here without a server so the fuzzer's tests can be collected
    (the REST test server has the default settings' clock range)."""
    routes = [route for service in _SERVICES for route in routes_of(service)]
    bounds = request_bounds(ClockRange(Settings().min_move_ms, Settings().max_move_ms))
    return openapi_document(routes, title="Parlour", version="v1", comments=proto_comments(), bounds=bounds)


def test_the_served_document_is_the_generated_one(server: RunningServer) -> None:
    assert _document(server) == _generated_document()


#: Refusals that depend on the state of things, not on the request's shape, so a request the document
#: allows may still get them: no such game, tournament, bot, seat or version (404); a conflict such as a
#: finished game or a taken seat (409); credentials the fuzzer does not have (401, 403: seat tokens, the
#: admin key, another bot's key); a quota (429). Anything else the server refuses (400) the document
#: must not allow.
_STATE_DEPENDENT = ["2xx", "401", "403", "404", "409", "429"]
#: Examples per operation: the run stays within about two minutes.
_EXAMPLES = 40

schema = schemathesis.openapi.from_dict(
    _generated_document(),
    config=SchemathesisConfig.from_dict(
        {
            "checks": {"positive_data_acceptance": {"expected-statuses": _STATE_DEPENDENT}},
            # The admin's calls are fuzzed as the admin, so their bodies are read, not refused unread.
            "auth": {"openapi": {"adminKey": {"api_key": ADMIN_KEY}}},
        }
    ),
)


@schema.parametrize()
# Derandomized (examples drawn from a seed fixed per operation, no example database): the suite is the
# same on every run, so it never fails by chance.
@settings(max_examples=_EXAMPLES, deadline=timedelta(seconds=15), derandomize=True, database=None)
def test_no_input_makes_the_server_fail(case: Any, server: RunningServer, finished_game: str, open_game: str) -> None:
    """No request makes the server fail (5xx), every reply is as documented, and every request the document
    allows is taken unless the state of things refuses it (``_STATE_DEPENDENT``). A third of the calls
    naming a game name the finished game, a third the open one (not for streams: its stream would not end)."""
    if "game_id" in (case.path_parameters or {}):
        draw = random.Random(repr(case.path_parameters)).random()
        if draw < 1 / 3 or (draw < 2 / 3 and case.operation.path.endswith(":watch")):
            case.path_parameters["game_id"] = finished_game
        elif draw < 2 / 3:
            case.path_parameters["game_id"] = open_game
    case.call_and_validate(
        base_url=server.http_url,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
            positive_data_acceptance,
        ],
        timeout=10,
    )
