"""Every error class over REST: the status of the one error table and an ErrorDetail JSON body."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from parlour.v1 import game_service_pb2
from service.api.request_sizes import RequestSizes
from service.api.rest.server import build_http_server
from service.app.errors import ERRORS
from service.store.embedded import RedisProcess
from tests.rest.conftest import ADMIN_KEY
from tests.rest.harness import HttpError, JsonClient, RunningServer, server_in_thread
from tests.rest.play import create_with_seats, play_to_end

SEEN: set[str] = set()


async def expect(status: int, reason: str, call: Any) -> dict[str, Any]:
    """Await ``call``; it must fail with ``status`` and an ErrorDetail naming ``reason`` and a sentence."""
    with pytest.raises(HttpError) as caught:
        await call
    assert (caught.value.status, caught.value.body.get("reason")) == (status, reason), caught.value.body
    assert set(caught.value.body) == {"reason", "message"}
    assert len(caught.value.body["message"]) > 10
    if reason in ERRORS:
        assert ERRORS[reason].http_status == status
    SEEN.add(reason)
    return caught.value.body


async def _pending_view(api: JsonClient, game_id: str, tokens: dict[int, str]) -> tuple[int, dict[str, Any]]:
    spectator = (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]
    seat = spectator["pendingSeats"][0]
    return seat, (await api.call("GET", f"/v1/games/{game_id}/view", token=tokens[seat], seat=seat))["view"]


def _submit(api: JsonClient, game_id: str, seat: int, token: str | None, command: Any, **extra: Any) -> Any:
    body = {"seat": seat, "command": command, "commandId": extra.pop("command_id", uuid.uuid4().hex), **extra}
    return api.call("POST", f"/v1/games/{game_id}/commands", body, token=token)


async def test_requests_that_cannot_be_understood_are_400(api: JsonClient, server: RunningServer) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.post(server.http_url + "/v1/games", data=b"{not json") as reply:
            assert reply.status == 400
            body = await reply.json()
            assert body["reason"] == "request/invalid" and "line 1, column 2" in body["message"]
            assert "Expecting" not in body["message"] and "char" not in body["message"]
        async with session.post(server.http_url + "/v1/games", data=b"[1, 2]") as reply:
            assert (reply.status, (await reply.json())["reason"]) == (400, "request/invalid")
    await expect(400, "request/invalid", api.call("POST", "/v1/games", {"game": "oldmen", "seats": "three"}))
    await expect(400, "request/invalid", api.call("POST", "/v1/games", {"game": "oldmen", "nonsense": 1}))
    await expect(400, "request/invalid", api.call("GET", "/v1/games", **{"from": 1}))
    await expect(400, "request/invalid", api.call("GET", "/v1/games", pageSize="-3"))
    await expect(400, "game/unknown_type", api.call("POST", "/v1/games", {"game": "chess", "seats": 2}))
    await expect(400, "game/bad_config", api.call("POST", "/v1/games", {"game": "oldmen", "seats": 9}))


async def test_unknown_games_and_routes_are_404(api: JsonClient) -> None:
    await expect(404, "game/not_found", api.call("GET", "/v1/games/doesnotexist"))
    await expect(404, "rules/not_found", api.call("GET", "/v1/gameTypes/oldmen/rules", rulesVersion="oldmen/9"))
    await expect(404, "game/not_found", api.call("GET", "/v1/games/doesnotexist/events"))
    await expect(404, "http/not_found", api.call("GET", "/v1/nowhere"))
    await expect(405, "http/method_not_allowed", api.call("DELETE", "/v1/games"))


async def test_a_rules_version_the_server_does_not_hold_is_503_naming_the_ones_it_has(api: JsonClient) -> None:
    body = {"game": "libertalia", "seats": 2, "rulesVersion": "libertalia/99"}
    refused = await expect(503, "game/rules_unavailable", api.call("POST", "/v1/games", body))
    assert "libertalia/1, libertalia/2" in refused["message"]


async def test_seats_and_tokens(api: JsonClient) -> None:
    game_id = (await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3}))["game"]["gameId"]
    claims = [await api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": f"p{n}", "seat": n}) for n in (0, 1)]
    await expect(409, "seat/taken", api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": "x", "seat": 0}))
    await api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": "p2"})
    await expect(409, "seat/none_free", api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": "late"}))
    await expect(400, "request/invalid", api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": ""}))
    view = f"/v1/games/{game_id}/view"
    await expect(401, "auth/missing_token", api.call("GET", view, seat=0))
    await expect(401, "auth/bad_token", api.call("GET", view, seat=0, token="not-a-token"))
    await expect(403, "auth/wrong_seat", api.call("GET", view, seat=0, token=claims[1]["seatToken"]))
    assert (await api.call("GET", view, seat=0, token=claims[0]["seatToken"]))["view"]["seat"] == 0
    # Which seats and versions a game has depends on the game: not found, not a malformed request.
    await expect(404, "seat/not_found", api.call("GET", view, seat=3, token=claims[0]["seatToken"]))
    await expect(404, "seat/not_found", api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": "x", "seat": 5}))
    await expect(404, "version/not_found", api.call("GET", view, atVersion=10_000))


async def test_commands_that_are_not_allowed_now_are_409_and_malformed_ones_400(api: JsonClient) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    seat, view = await _pending_view(api, game_id, tokens)
    hand = {(c["colour"], c["value"]) for c in view["oldmen"]["seats"][seat]["hand"]}
    colour, value = next(
        (c, v) for c in ("OLDMEN_COLOUR_RED", "OLDMEN_COLOUR_BLUE") for v in range(1, 11) if (c, v) not in hand
    )
    not_in_hand = {"oldmen": {"playCard": {"card": {"colour": colour, "value": value}}}}
    legal = view["legalCommands"][0]
    other = next(s for s in tokens if s != seat)
    await expect(409, "command/illegal", _submit(api, game_id, seat, tokens[seat], not_in_hand))
    await expect(409, "command/not_your_turn", _submit(api, game_id, other, tokens[other], legal))
    stale = int(view["version"]) - 1
    await expect(409, "game/stale_version", _submit(api, game_id, seat, tokens[seat], legal, expectedVersion=stale))
    await expect(400, "command/malformed", _submit(api, game_id, seat, tokens[seat], {}))
    await expect(400, "command/malformed", _submit(api, game_id, seat, tokens[seat], {"verraeter": {}}))
    await expect(401, "auth/missing_token", _submit(api, game_id, seat, None, legal))
    await expect(403, "auth/wrong_seat", _submit(api, game_id, seat, tokens[other], legal))
    await expect(400, "request/invalid", _submit(api, game_id, seat, tokens[seat], legal, command_id=""))
    first = await _submit(api, game_id, seat, tokens[seat], legal, command_id="once")
    again = await _submit(api, game_id, seat, tokens[seat], legal, command_id="once")
    assert (again["duplicate"], again["version"]) == (True, first["version"])
    await expect(400, "command/id_reused", _submit(api, game_id, seat, tokens[seat], not_in_hand, command_id="once"))
    await play_to_end(api, game_id, tokens, random.Random(1))
    await expect(409, "game/over", _submit(api, game_id, seat, tokens[seat], legal))


async def test_oversized_bodies_are_413(api: JsonClient, server: RunningServer) -> None:
    limit = server.app.settings.max_message_bytes
    big = {"game": "oldmen", "seats": 3, "options": {"padding": "x" * limit}}
    await expect(413, "request/too_large", api.call("POST", "/v1/games", big))
    async with aiohttp.ClientSession() as session:

        async def chunks() -> Any:
            for _ in range(limit // 1000 + 2):
                yield b" " * 1000

        async with session.post(server.http_url + "/v1/games", data=chunks()) as reply:
            assert (reply.status, (await reply.json())["reason"]) == (413, "request/too_large")


async def test_a_bad_last_event_id_is_400(server: RunningServer, api: JsonClient) -> None:
    game_id, _ = await create_with_seats(api, "oldmen", 3)
    async with aiohttp.ClientSession() as session:
        url = f"{server.http_url}/v1/games/{game_id}:watch"
        async with session.get(url, headers={"Last-Event-ID": "yesterday"}) as reply:
            assert (reply.status, (await reply.json())["reason"]) == (400, "request/invalid")
        async with session.get(f"{server.http_url}/v1/games/nothere:watch") as reply:
            assert (reply.status, (await reply.json())["reason"]) == (404, "game/not_found")
        async with session.get(url + "?seat=1") as reply:
            assert (reply.status, (await reply.json())["reason"]) == (401, "auth/missing_token")


async def _admin(session: aiohttp.ClientSession, url: str, body: Any, key: str | None) -> Any:
    headers = {"X-Parlour-Admin-Key": key} if key is not None else {}
    async with session.post(url, json=body, headers=headers) as reply:
        data = await reply.json()
        if reply.status >= 300:
            raise HttpError(reply.status, data)
        return data


async def test_tournament_errors_are_mapped_like_every_other(api: JsonClient, server: RunningServer) -> None:
    """Administration needs the admin key (401 without, 403 wrong); bad settings, unknown tournaments, a
    bot name taken with another key, too few bots and late registration each have their reason."""
    settings = {"name": "t", "game": "oldmen", "tableSize": 3, "format": "TOURNAMENT_FORMAT_ROUND_ROBIN", "rounds": 1}
    create = server.http_url + "/v1/tournaments"
    async with aiohttp.ClientSession() as session:
        await expect(401, "auth/missing_admin_key", _admin(session, create, {"settings": settings}, None))
        await expect(403, "auth/bad_admin_key", _admin(session, create, {"settings": settings}, "wrong-key"))
        bad = {**settings, "rounds": 0}
        await expect(400, "tournament/bad_config", _admin(session, create, {"settings": bad}, ADMIN_KEY))
        made = await _admin(session, create, {"settings": settings}, ADMIN_KEY)
        tid = made["tournament"]["tournamentId"]
        start = f"{server.http_url}/v1/tournaments/{tid}:start"
        await expect(404, "tournament/not_found", api.call("GET", "/v1/tournaments/nosuch/standings"))
        name = f"rest-{uuid.uuid4().hex[:8]}"
        register = f"/v1/tournaments/{tid}/bots"
        fresh = {"botName": name, "botKey": "k" * 20}
        body = await expect(404, "bot/unknown", api.call("POST", register, fresh))  # no such bot, no admin key
        assert "connect it once" in body["message"]
        await _admin(session, server.http_url + register, fresh, ADMIN_KEY)
        await api.call("POST", register, fresh)  # the bot exists now: its own key is enough
        await expect(403, "auth/bad_bot_key", api.call("POST", register, {"botName": name, "botKey": "x" * 20}))
        await expect(409, "tournament/too_few_bots", _admin(session, start, {}, ADMIN_KEY))
        for other in ("b", "c"):
            await _admin(session, server.http_url + register, {"botName": name + other, "botKey": "k" * 20}, ADMIN_KEY)
        await _admin(session, start, {}, ADMIN_KEY)
        late = {"botName": name + "d", "botKey": "k" * 20}
        await expect(409, "tournament/started", _admin(session, server.http_url + register, late, ADMIN_KEY))


async def test_a_tournament_field_is_bounded_by_the_games_a_round_would_have(
    api: JsonClient, server: RunningServer
) -> None:
    """A two-seat round robin takes bots until a round would have more games than the server plays per
    round (1000 by default): the 46th bot would make 1035 games and is refused as tournament/full."""
    settings = {
        "name": "big",
        "game": "libertalia",
        "tableSize": 2,
        "format": "TOURNAMENT_FORMAT_ROUND_ROBIN",
        "rounds": 1,
    }
    async with aiohttp.ClientSession() as session:
        made = await _admin(session, server.http_url + "/v1/tournaments", {"settings": settings}, ADMIN_KEY)
        register = f"{server.http_url}/v1/tournaments/{made['tournament']['tournamentId']}/bots"
        prefix = f"field-{uuid.uuid4().hex[:6]}"
        for n in range(45):
            await _admin(session, register, {"botName": f"{prefix}-{n}", "botKey": "k" * 20}, ADMIN_KEY)
        late = _admin(session, register, {"botName": f"{prefix}-45", "botKey": "k" * 20}, ADMIN_KEY)
        body = await expect(409, "tournament/full", late)
    assert "1035 games" in body["message"] and "1000 per round" in body["message"]


async def test_non_ascii_page_tokens_and_statuses_are_400(api: JsonClient) -> None:
    """A page token or a status that is not ASCII ("²" passes str.isdigit) is a 400 naming the field, not
    a 500."""
    for query in ({"pageToken": "9" * 20}, {"pageToken": "²"}, {"pageToken": "\u0661"}, {"status": "²"}):
        body = await expect(400, "request/invalid", api.call("GET", "/v1/games", **query))
        assert ("page_token" in body["message"]) or ("status" in body["message"])


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A server of its own whose quotas are tiny: one game a minute, one open stream per client."""
    with server_in_thread(
        tmp_path_factory.mktemp("strict"), rate_create_games="1/minute", max_streams_per_client=1
    ) as running:
        yield running


async def test_a_client_over_its_quotas_gets_429_naming_the_limit(strict_server: RunningServer) -> None:
    """A second game within the minute is 429 limit/rate saying when to retry; a second open event
    stream is 429 limit/streams naming the flag."""
    async with aiohttp.ClientSession() as session:
        api = JsonClient(session, strict_server.http_url)
        made = await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3})
        body = await expect(429, "limit/rate", api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3}))
        assert "--rate-create-games" in body["message"] and "retry in" in body["message"]
        watch = f"{strict_server.http_url}/v1/games/{made['game']['gameId']}:watch"
        async with session.get(watch) as first:
            assert first.status == 200
            async with session.get(watch) as second:
                data = await second.json(content_type=None)
                assert (second.status, data["reason"]) == (429, "limit/streams")
                SEEN.add(data["reason"])
                assert "--max-streams-per-client" in data["message"]


@pytest.fixture(scope="module")
def private_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A server of its own that requires API keys."""
    with server_in_thread(tmp_path_factory.mktemp("private"), require_api_key=True, admin_key=ADMIN_KEY) as running:
        yield running


async def test_a_private_server_wants_an_api_key_that_it_issued(private_server: RunningServer) -> None:
    """Creating a game without a key is 401 auth/missing_api_key, with a made-up key 401 auth/bad_api_key,
    with a key the admin made over REST it works."""
    async with aiohttp.ClientSession() as session:
        api = JsonClient(session, private_server.http_url)
        create = {"game": "oldmen", "seats": 3}
        await expect(401, "auth/missing_api_key", api.call("POST", "/v1/games", create))
        url = private_server.http_url + "/v1/games"
        async with session.post(url, json=create, headers={"X-Parlour-Api-Key": "pk_bogus"}) as reply:
            body = await reply.json()
            assert (reply.status, body["reason"]) == (401, "auth/bad_api_key")
            SEEN.add(body["reason"])
        made = await _admin(session, private_server.http_url + "/v1/admin/api-keys", {"name": "rest"}, ADMIN_KEY)
        async with session.post(url, json=create, headers={"X-Parlour-Api-Key": made["apiKey"]}) as reply:
            assert reply.status == 200


async def test_the_admins_refusals_that_depend_on_what_exists_are_404_and_409(server: RunningServer) -> None:
    """A name already taken, a key or a claim that is not there: the state of things refuses, not the shape
    of the request (which the API description allows), so not 400."""
    admin = server.http_url + "/v1/admin"
    async with aiohttp.ClientSession() as session:
        name = f"k{uuid.uuid4().hex[:8]}"
        await _admin(session, f"{admin}/api-keys", {"name": name}, ADMIN_KEY)
        await expect(409, "api_key/taken", _admin(session, f"{admin}/api-keys", {"name": name}, ADMIN_KEY))
        await _admin(session, f"{admin}/api-keys/{name}:revoke", None, ADMIN_KEY)
        await expect(404, "api_key/not_found", _admin(session, f"{admin}/api-keys/{name}:revoke", None, ADMIN_KEY))
        api = JsonClient(session, server.http_url)
        game_id = (await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3}))["game"]["gameId"]
        revoke = f"{admin}/games/{game_id}/seats/1:revoke"
        await expect(409, "seat/not_claimed", _admin(session, revoke, None, ADMIN_KEY))
        await api.call("POST", f"/v1/games/{game_id}/seats", {"playerName": "p", "seat": 1})
        await _admin(session, revoke, None, ADMIN_KEY)
        await expect(404, "seat/not_found", _admin(session, f"{admin}/games/{game_id}/seats/3:revoke", None, ADMIN_KEY))


async def test_replay_errors(api: JsonClient) -> None:
    """Exporting a running game or a game that keeps its secrets is 409; so is importing a forged export."""
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    await expect(409, "game/not_over", api.call("GET", f"/v1/games/{game_id}:export"))
    await play_to_end(api, game_id, tokens, random.Random(7))
    export = (await api.call("GET", f"/v1/games/{game_id}:export"))["export"]
    assert (await api.call("POST", "/v1/replays:verify", {"export": export}))["verified"] is True
    forged = {**export, "seed": "AAAA"}
    body = await expect(409, "replay/not_verified", api.call("POST", "/v1/replays:import", {"export": forged}))
    assert "commitment" in body["message"]
    hidden = await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3, "keepHiddenAfterEnd": True})
    hidden_id = hidden["game"]["gameId"]
    seats = {}
    for n in range(3):
        claimed = await api.call("POST", f"/v1/games/{hidden_id}/seats", {"playerName": f"p{n}"})
        seats[claimed["seat"]] = claimed["seatToken"]
    await play_to_end(api, hidden_id, seats, random.Random(8))
    await expect(409, "game/hidden", api.call("GET", f"/v1/games/{hidden_id}:export"))


async def test_a_used_stream_ticket_is_401(api: JsonClient, server: RunningServer) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    ticket = await api.call("POST", f"/v1/games/{game_id}/streamTickets", {"seat": 0}, token=tokens[0])
    query = {"seat": 0, "streamTicket": ticket["streamTicket"]}
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{server.http_url}/v1/games/{game_id}:watch", params=query) as reply:
            assert reply.status == 200
        await expect(401, "auth/bad_ticket", api.call("GET", f"/v1/games/{game_id}:watch", **query))


class _BrokenGames:
    """A GameService whose every call fails unexpectedly (a fake, to reach the server's last resort)."""

    async def ListGameTypes(self, request: object, context: object) -> None:  # noqa: N802 (the rpc's name)
        raise RuntimeError("secret internals: password=hunter2")


async def test_an_unexpected_failure_is_500_server_internal_without_details() -> None:
    service = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    http = build_http_server(
        [(service, _BrokenGames())], host="127.0.0.1", port=0, body_sizes=RequestSizes(10_000, 10_000)
    )
    await http.start()
    try:
        async with aiohttp.ClientSession() as session:
            api = JsonClient(session, f"http://127.0.0.1:{http.port}")
            body = await expect(500, "server/internal", api.call("GET", "/v1/gameTypes"))
    finally:
        await http.stop()
    assert "secret" not in body["message"] and "hunter2" not in body["message"]


async def test_an_abort_is_sent_with_the_status_of_the_table() -> None:
    """Whatever the gRPC code a reason travels with, REST sends the table's status (409 for the
    FAILED_PRECONDITION reasons); an abort without a reason of the table is the server's failure."""
    import grpc

    from service.api.grpc_errors import REASON_KEY
    from service.api.rest.calls import CallAbortedError, HttpCallContext

    for reason, kind in ERRORS.items():
        with pytest.raises(CallAbortedError) as caught:
            await HttpCallContext(None).abort(kind.grpc_code, "a sentence", ((REASON_KEY, reason),))
        assert (caught.value.error.status, caught.value.error.reason) == (kind.http_status, reason)
    with pytest.raises(CallAbortedError) as caught:
        await HttpCallContext(None).abort(grpc.StatusCode.FAILED_PRECONDITION, "no reason")
    assert (caught.value.error.status, caught.value.error.reason) == (500, "server/internal")


async def test_wrong_types_and_unknown_fields_are_named_without_python_text(api: JsonClient) -> None:
    """A body that does not fit the request gets a sentence naming the field and what it expects, never
    the parser's own words."""
    cases = [
        ({"game": "oldmen", "seats": "three"}, ["seats", "whole number"]),
        ({"game": "oldmen", "seats": 3, "nonsense": 1}, ["nonsense", "game", "seats"]),
        ({"game": 5, "seats": 3}, ["game", "string"]),
        ({"game": "oldmen", "seats": 3, "options": ["x"]}, ["options", "object"]),
        ({"game": "oldmen", "seats": 3, "options": {"a": 1}}, ["options", "string"]),
        ({"game": "oldmen", "seats": 3.5}, ["seats", "whole number"]),
        ({"game": "oldmen", "seats": 3, "seed": "***"}, ["seed", "base64"]),
        ({"game": "oldmen", "seats": 3, "timeControl": {"moveMs": "soon"}}, ["timeControl.moveMs", "whole number"]),
        ({"game": "oldmen", "seats": 3, "timeControl": {"speed": 1}}, ["timeControl", "speed"]),
    ]
    for body, words in cases:
        message = (await expect(400, "request/invalid", api.call("POST", "/v1/games", body)))["message"]
        for word in words:
            assert word in message, (body, message)
        for python in ("invalid literal", "Message type", "Available Fields", "Failed to parse", "int()"):
            assert python not in message, (body, message)
    query = (await expect(400, "request/invalid", api.call("GET", "/v1/games", pageSize="zero")))["message"]
    assert "pageSize" in query and "whole number" in query and "invalid literal" not in query
    command = {"oldmen": {"playCard": {"card": {"colour": "PURPLE", "value": 3}}}}
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    body = (await expect(400, "request/invalid", _submit(api, game_id, 0, tokens[0], command)))["message"]
    assert "command.oldmen.playCard.card.colour" in body and "OLDMEN_COLOUR_RED" in body


async def test_events_past_the_end_say_where_the_log_ends(api: JsonClient) -> None:
    """ListEvents from beyond the last event returns no events and next_version = last_version + 1."""
    game_id = (await api.call("POST", "/v1/games", {"game": "oldmen", "seats": 3}))["game"]["gameId"]
    for start in (1, 5_000):
        page = await api.call("GET", f"/v1/games/{game_id}/events", fromVersion=start)
        assert int(page["nextVersion"]) == int(page["lastVersion"]) + 1
    assert page["events"] == []


async def test_a_call_while_redis_is_away_is_503_with_a_sentence(tmp_path: Path) -> None:
    """With its Redis stopped, a server answers 503 store/unavailable, never naming Redis's address."""
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    try:
        with server_in_thread(tmp_path / "server", redis_url=redis.url) as own:
            async with aiohttp.ClientSession() as session:
                client = JsonClient(session, own.http_url)
                await client.call("GET", "/v1/games")
                redis.stop()
                body = await expect(503, "store/unavailable", client.call("GET", "/v1/games"))
                assert body["message"] == "the game store is not reachable; retry"
                redis.start()
    finally:
        redis.kill()


async def _raw(server: RunningServer, request: bytes) -> tuple[int, str, dict[str, Any]]:
    """Send raw bytes to the HTTP port; the status, content type and JSON body of the answer."""
    host, port = server.http_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        head, _, body = (await asyncio.wait_for(reader.read(), 10)).partition(b"\r\n\r\n")
    finally:
        writer.close()
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers["Content-Type"], json.loads(body)


async def test_requests_the_http_parser_refuses_get_the_tables_json_error(server: RunningServer) -> None:
    """An over-long request line is 414, an over-long header 431, and unreadable bytes 400, each a JSON
    ErrorDetail with its reason from the table, never aiohttp's own text, and never the client's bytes."""
    long_path = b"GET /v1/games/" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    long_header = b"GET /v1/gameTypes HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n"
    for request, status, reason in [
        (long_path, 414, "request/uri_too_long"),
        (long_header, 431, "request/headers_too_large"),
        (b"\x16\x03\x01 not http at all\r\n\r\n", 400, "request/invalid"),
    ]:
        answer, content_type, body = await _raw(server, request)
        assert (answer, body["reason"]) == (status, reason)
        assert content_type.startswith("application/json") and "aaaa" not in body["message"]
        assert "bbbb" not in body["message"]
        SEEN.add(reason)


def test_every_reason_of_the_error_table_was_seen_over_rest() -> None:
    """Runs after the tests above (file order): each reason of the table came back with its status."""
    if not SEEN:
        pytest.skip("checks what the other tests of this module saw; run the whole module")
    assert set(ERRORS) - SEEN == set()
