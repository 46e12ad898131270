"""While a duplicate deal is played, its other tables tell nothing about it to anyone without a seat there.

Every table of a deal deals the same cards to the same seat (Old Men: the same hands; Libertalia: the
characters and loot of every voyage), so the log of a table that is over tells the cards of the table
being played. Such a table is withheld until the deal's last table ends: a bot tournament is played over
the network and paused while the second table of a deal runs; then every channel of the first table is
read without a token and with other bots' tokens (ListEvents, WatchGame, the SSE stream, GetView at every
version, stream tickets, GetGame, ListGames, the export, the tournament's log and standings, the bots'
GameEnded messages) and nothing tells the running table's secrets, though the first table's log holds
them. Its own seats still read what they were shown there. When the deal is over, everything opens.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from google.protobuf.message import Message

from engines.contract import AnyGame, fold
from engines.libertalia import LIBERTALIA
from engines.oldmen import OLDMEN
from parlour.v1 import game_pb2
from service.bootstrap import App
from tests.contract.channels import TRANSPORTS, inner
from tests.tournaments.deals import PausedDeal, Reader, Refused, attempt, paused_deal, secrets_of, told
from tests.tournaments.helpers import assert_standings_match, verify_game

#: The game and the size of the field: one bot more than a table, so some bot has no seat at the table
#: looked at (a deal's group is the field less one bot).
FIELDS = [pytest.param(OLDMEN, 4, id="oldmen"), pytest.param(LIBERTALIA, 3, id="libertalia")]


def _payloads(outcome: Any) -> list[Message]:
    """The messages a call gave (none when it was refused)."""
    if isinstance(outcome, Refused):
        return []
    return list(outcome) if isinstance(outcome, list) else [outcome]


def _refused(outcome: Any, reason: str, where: str) -> list[str]:
    """[] if ``outcome`` is a refusal for ``reason``; else what is wrong, in a sentence."""
    if not isinstance(outcome, Refused):
        return [f"{where}: the server answered {str(outcome)[:200]!r}"]
    return [] if outcome.reason == reason else [f"{where}: {outcome}, not {reason}"]


async def _read_every_channel(deal: PausedDeal, reader: Reader) -> tuple[list[Message], list[str]]:
    """Read the held table on every channel as a spectator and with every token but its seats' own: the
    messages received, and every call that was not refused as it should be."""
    held, running = deal.held, deal.running
    seated = deal.seated(held)
    last = len(await deal.raw(held))
    outsider = next(iter(deal.outsider().seats.values()))[1]
    readers: list[tuple[int | None, str | None, str]] = [(None, None, "game/hidden")]
    for seat, bot in seated.items():
        other = seated[(seat + 1) % len(seated)]
        readers += [
            (seat, None, "auth/missing_token"),
            (seat, bot.seats[running][1], "auth/bad_token"),  # the same bot's seat token at the running table
            (seat, other.seats[held][1], "auth/wrong_seat"),  # another bot's seat token at this table
            (seat, outsider, "auth/bad_token"),  # a bot with no seat at this table
        ]
    received: list[Message] = []
    wrong: list[str] = []
    for transport in TRANSPORTS:
        for seat, token, reason in readers:
            where = f"{transport}, seat {seat}, {'a token' if token else 'no token'}"
            calls = {
                "ListEvents": reader.channels.events(transport, held, seat, token),
                "WatchGame": reader.watch(transport, held, seat, token),
                "GetView": reader.channels.view(transport, held, seat, token),
            }
            if seat is not None:
                calls["CreateStreamTicket"] = reader.ticket(transport, held, seat, token)
            for name, call in calls.items():
                outcome = await attempt(call)
                received += _payloads(outcome)
                wrong += _refused(outcome, reason, f"{name} ({where})")
        for version in range(1, last + 2):  # every version, and one beyond (not even the length is told)
            outcome = await attempt(reader.channels.view(transport, held, 0, outsider, at_version=version))
            received += _payloads(outcome)
            wrong += _refused(outcome, "auth/bad_token", f"GetView of seat 0 at {version} ({transport})")
            outcome = await attempt(reader.channels.view(transport, held, None, None, at_version=version))
            received += _payloads(outcome)
            wrong += _refused(outcome, "game/hidden", f"GetView at {version} ({transport})")
        if isinstance(outcome, Refused) and "other tables are still being played" not in outcome.message:
            wrong.append(f"the refusal does not say why: {outcome.message}")
        outcome = await attempt(reader.channels.export(transport, held))
        received += _payloads(outcome)
        wrong += _refused(outcome, "game/hidden", f"ExportGame ({transport})")
        for summary in (await reader.summary(transport, held), await reader.listed(transport, held)):
            received.append(summary)
            shown = (summary.withheld, summary.status, summary.version, len(summary.results))
            if shown != (True, game_pb2.GAME_STATUS_FINISHED, 0, 0):
                wrong.append(f"the summary ({transport}) shows (withheld, status, version, results) {shown}")
        events, standings, now = await reader.tournament(transport)
        received += [*events, *standings, *now]
        recorded = {e.table_finished.game_id for e in events if e.HasField("table_finished")}
        if recorded & {held, running}:
            wrong.append("the tournament recorded a table of a deal being played")
        assert_standings_match(standings, events)
    for bot in seated.values():
        ended = bot.ended(held)
        assert ended is not None, f"{bot.name} was not told that the held table ended"
        received.append(ended)
        if ended.results or not ended.results_withheld:
            wrong.append(f"{bot.name}'s GameEnded: {ended}")
    told_outsider = [getattr(m, str(m.WhichOneof("message"))) for m in deal.outsider().received]
    assert all(getattr(m, "game_id", "") != held for m in told_outsider)
    return received, wrong


async def _own_seats_still_read_what_they_were_shown(deal: PausedDeal, reader: Reader) -> None:
    """Each seat of the held table reads its own events and view, as it was shown them while it ran."""
    game, raw = deal.game, await deal.raw(deal.held)
    state = fold(game, raw)
    for seat, bot in deal.seated(deal.held).items():
        token = bot.seats[deal.held][1]
        events = await reader.channels.events("grpc", deal.held, seat, token)
        assert [inner(game, e) for e in events] == [game.redact(e, seat) for e in raw]
        view = await reader.channels.view("rest", deal.held, seat, token)
        assert inner(game, view) == game.view(state, seat) and not view.results


@pytest.mark.parametrize(("game", "bots"), FIELDS)
async def test_while_a_deal_is_played_its_held_table_tells_no_one_without_a_seat_there_anything(
    admin_app: App, game: AnyGame, bots: int
) -> None:
    async with aiohttp.ClientSession() as session, paused_deal(admin_app, game, bots) as deal:
        reader = Reader(deal, session)
        try:
            secrets = secrets_of(game, await deal.state(deal.running))
            held_raw = await deal.raw(deal.held)
            public_log = [game.redact(e, None) for e in held_raw]
            assert secrets & told(game, public_log), (
                "the held table's public log should hold the running table's secrets"
            )
            await deal.ended_everywhere(deal.held)

            received, wrong = await _read_every_channel(deal, reader)
            assert told(game, received) & secrets == set(), "the held table told the running table's secrets"
            assert wrong == []

            await _own_seats_still_read_what_they_were_shown(deal, reader)
            running = await reader.channels.view("grpc", deal.running, None, None)  # a running table is normal play
            assert running.status == game_pb2.GAME_STATUS_RUNNING

            await deal.go_on()

            events, standings, _ = await reader.tournament("grpc")
            recorded = {e.table_finished.game_id: e.table_finished for e in events if e.HasField("table_finished")}
            results = [(r.seat, r.score, r.rank, r.player_name) for r in recorded[deal.held].results]
            state = fold(game, held_raw)
            for transport in TRANSPORTS:  # the deal is over: the held table is public like any finished game
                listed = await reader.channels.events(transport, deal.held, None, None)
                watched = await reader.watch(transport, deal.held, None, None)
                assert [inner(game, e) for e in listed] == held_raw == [inner(game, e) for e in watched]
                view = await reader.channels.view(transport, deal.held, None, None)
                assert inner(game, view) == game.view(state, None, reveal=True)
                summary = await reader.summary(transport, deal.held)
                assert not summary.withheld and summary.version == len(held_raw)
                shown = [(r.seat, r.score, r.rank, r.player_name) for r in summary.results]
                assert (
                    sorted(shown)
                    == sorted(results)
                    == sorted((r.seat, r.score, r.rank, r.player_name) for r in view.results)
                )
            assert secrets <= told(game, listed)
            verdict = await verify_game(deal.grpc_target, deal.held)
            assert verdict.verified, verdict.message
            assert deal.running in recorded
            assert_standings_match(standings, events)
        finally:
            await reader.close()


async def test_a_held_table_s_result_is_shown_nowhere_until_its_deal_is_over(admin_app: App) -> None:
    async with aiohttp.ClientSession() as session, paused_deal(admin_app, OLDMEN, 3) as deal:
        reader = Reader(deal, session)
        try:
            await deal.ended_everywhere(deal.held)
            assert (await admin_app.games.record(deal.held)).results  # the server has it: it is not shown
            for transport in TRANSPORTS:
                for summary in (await reader.summary(transport, deal.held), await reader.listed(transport, deal.held)):
                    assert not summary.results and summary.withheld, summary
                seat, bot = next(iter(deal.seated(deal.held).items()))
                view = await reader.channels.view(transport, deal.held, seat, bot.seats[deal.held][1])
                assert view.status == game_pb2.GAME_STATUS_FINISHED and not view.results
                events, standings, now = await reader.tournament(transport)
                assert not any(e.HasField("table_finished") for e in events)
                assert all(row.games == 0 for row in (*standings, *now))
            for bot in deal.bots.values():
                ended = bot.ended(deal.held)
                assert ended is not None and ended.results_withheld and not ended.results, f"{bot.name}: {ended}"

            await deal.go_on()

            events, _, _ = await reader.tournament("grpc")
            recorded = {
                e.table_finished.game_id: e.table_finished.results for e in events if e.HasField("table_finished")
            }
            assert len(recorded) == OLDMEN.spec.min_seats
            for game_id, results in recorded.items():
                for transport in TRANSPORTS:
                    summary = await reader.summary(transport, game_id)
                    assert not summary.withheld and list(summary.results) == list(results)
        finally:
            await reader.close()


async def test_the_api_documentation_says_what_duplicate_deals_keep_secret_and_what_bots_remember(
    admin_app: App,
) -> None:
    """The documentation route of the memory question: the rotations of a deal are played by the same
    bots, which may remember the earlier ones; the served API description (OpenAPI, from the proto
    comments) says so, and says what the server does keep secret."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{admin_app.http_port}/openapi.json") as reply,
    ):
        document = await reply.json()
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("duplicateSeeds"), dict):
                found.append(str(node["duplicateSeeds"].get("description", "")))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    assert found
    text = found[0]
    assert "same group of bots" in text and "may remember what they were shown there" in text
    assert "withheld" in text and "game/hidden" in text and "GameEnded carries none" in text
