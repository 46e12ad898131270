"""``parlour events``, ``parlour view`` and ``parlour games``: read what a server holds."""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime

from google.protobuf import json_format, text_format

from parlour.channel import api_key_of, tls_of
from parlour.cli.common import fail
from parlour.client import GameClient, ParlourError
from parlour.v1 import game_pb2

__all__ = ["register"]


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add ``events``, ``view`` and ``games``."""
    seat = argparse.ArgumentParser(add_help=False)
    seat.add_argument("--seat", type=int, default=None, help="see as this seat (default: as a spectator)")
    seat.add_argument(
        "--token",
        default=os.environ.get("PARLOUR_TOKEN"),
        help="the seat's token (default $PARLOUR_TOKEN); not needed once the game is over",
    )
    seat.add_argument("--json", action="store_true", help="print Protobuf JSON instead of text")

    events = commands.add_parser("events", parents=[server, seat], help="print a game's event log")
    events.add_argument("game_id")
    events.add_argument("--from", dest="from_version", type=int, default=1, help="first version to print")
    events.add_argument("--follow", action="store_true", help="keep printing new events until the game ends")
    events.set_defaults(run=_events)

    view = commands.add_parser("view", parents=[server, seat], help="print a seat's or a spectator's view")
    view.add_argument("game_id")
    view.set_defaults(run=_view)

    games = commands.add_parser("games", parents=[server], help="list games, newest first")
    games.add_argument("--game", default="", help="only games of this name")
    games.add_argument("--status", choices=["running", "finished"], default=None)
    games.add_argument("--limit", type=int, default=50)
    games.set_defaults(run=_games)


def _event_line(event: game_pb2.Event, as_json: bool) -> str:
    if as_json:
        return json_format.MessageToJson(event, indent=None)
    who = f"seat {event.seat}" if event.HasField("seat") else "setup"
    kind = event.WhichOneof("game")
    text = text_format.MessageToString(getattr(event, kind), as_one_line=True) if kind else "(no game payload)"
    return f"{event.version:>5}  {who:<7} {text}"


async def _events(args: argparse.Namespace) -> int:
    try:
        async with GameClient(args.server, tls=tls_of(args), api_key=api_key_of(args)) as client:
            source = (
                client.watch(args.game_id, args.from_version, args.seat, args.token)
                if args.follow
                else client.events(args.game_id, args.from_version, args.seat, args.token)
            )
            async for event in source:
                print(_event_line(event, args.json), flush=True)
    except ParlourError as error:
        return fail("parlour events", error)
    return 0


async def _view(args: argparse.Namespace) -> int:
    try:
        async with GameClient(args.server, tls=tls_of(args), api_key=api_key_of(args)) as client:
            view = await client.view(args.game_id, args.seat, args.token)
    except ParlourError as error:
        return fail("parlour view", error)
    print(json_format.MessageToJson(view) if args.json else text_format.MessageToString(view))
    return 0


async def _games(args: argparse.Namespace) -> int:
    status = {"running": game_pb2.GAME_STATUS_RUNNING, "finished": game_pb2.GAME_STATUS_FINISHED}.get(args.status, 0)
    try:
        async with GameClient(args.server, tls=tls_of(args), api_key=api_key_of(args)) as client:
            page = await client.list_games(args.game, status, args.limit)
    except ParlourError as error:
        return fail("parlour games", error)
    for game in page.games:
        created = datetime.fromtimestamp(game.created_at.seconds, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")
        state = game_pb2.GameStatus.Name(game.status).removeprefix("GAME_STATUS_").lower()
        scores = " ".join(f"{r.player_name or r.seat}:{r.score}" for r in game.results)
        if game.withheld:  # a tournament deal's table: shown once every table of its deal is over
            scores = "withheld until its deal is over"
        print(f"{game.game_id}  {game.game:<11} {state:<9} {created}  v{game.version:<5} {scores}")
    return 0
