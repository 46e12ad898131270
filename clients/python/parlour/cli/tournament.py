"""``parlour tournament``: create, register, start, watch and show the standings of tournaments.

The live display uses ``rich`` when it is installed (``pip install 'parlour-client[display]'``) and plain
lines otherwise, so the SDK itself needs nothing beyond gRPC and Protobuf.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import grpc

from parlour.channel import api_key_metadata, api_key_of, open_channel, tls_of
from parlour.cli.common import fail
from parlour.client import ParlourError
from parlour.v1 import clock_pb2
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc

__all__ = ["call", "register", "standings_table"]

_FORMATS = {"round-robin": pb.TOURNAMENT_FORMAT_ROUND_ROBIN, "swiss": pb.TOURNAMENT_FORMAT_SWISS}
_STATUS = {
    pb.TOURNAMENT_STATUS_REGISTERING: "registering",
    pb.TOURNAMENT_STATUS_RUNNING: "running",
    pb.TOURNAMENT_STATUS_FINISHED: "finished",
}


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add ``tournament`` with its sub-commands."""
    parser = commands.add_parser("tournament", help="run tournaments of bots", description="Run tournaments of bots.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    admin = argparse.ArgumentParser(add_help=False)
    admin.add_argument(
        "--admin-key", default=os.environ.get("PARLOUR_ADMIN_KEY"), help="the server's admin key (or PARLOUR_ADMIN_KEY)"
    )
    create = actions.add_parser("create", parents=[server, admin], help="create a tournament (admin)")
    create.add_argument("game", help="game name, e.g. oldmen")
    create.add_argument("--name", default="tournament", help="display name")
    create.add_argument("--table-size", type=int, required=True, help="seats per game")
    create.add_argument("--format", choices=sorted(_FORMATS), default="round-robin")
    create.add_argument("--rounds", type=int, default=1)
    create.add_argument("--move-ms", type=int, default=0, help="time per move in ms (0: no clock)")
    create.add_argument("--bank-ms", type=int, default=0)
    create.add_argument("--increment-ms", type=int, default=0)
    create.add_argument("--max-timeouts", type=int, default=0, help="timeouts before a seat is dropped (0: 3)")
    create.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal once per seat rotation, by the same bots one table after another: a table that "
        "is over stays withheld until the deal's last one ends, but the bots may remember the earlier ones",
    )
    create.add_argument("--parallel", type=int, default=0, help="games at once (0: the server's default)")
    create.add_argument(
        "--rules",
        default="",
        metavar="VERSION",
        help="the rules version of every game, e.g. oldmen/1 (default: the server's current one, which the "
        "tournament then states)",
    )
    create.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    create.set_defaults(run=_create)
    join = actions.add_parser(
        "register",
        parents=[server, admin],
        help="register a bot (one that has connected once, or any name with the admin key)",
    )
    join.add_argument("tournament_id")
    join.add_argument("--name", required=True)
    join.add_argument("--key", default=os.environ.get("PARLOUR_BOT_KEY"), help="the bot's key (or PARLOUR_BOT_KEY)")
    join.set_defaults(run=_register)
    start = actions.add_parser("start", parents=[server, admin], help="start a tournament (admin)")
    start.add_argument("tournament_id")
    start.set_defaults(run=_start)
    for name, run, text in (("watch", _watch, "follow a tournament live"), ("standings", _standings, "the standings")):
        sub = actions.add_parser(name, parents=[server], help=text)
        sub.add_argument("tournament_id")
        sub.set_defaults(run=run)


async def call(args: argparse.Namespace, method: str, request: Any, admin_key: str | None = None) -> Any:
    """Call TournamentService ``method`` on ``args.server``; ParlourError when it refuses."""
    metadata = api_key_metadata(api_key_of(args)) + ([("x-parlour-admin-key", admin_key)] if admin_key else [])
    async with open_channel(args.server, tls_of(args)) as channel:
        try:
            return await getattr(pb_grpc.TournamentServiceStub(channel), method)(request, metadata=metadata)
        except grpc.aio.AioRpcError as error:
            raise ParlourError.from_rpc(error) from None


async def finished_tables(args: argparse.Namespace, tournament_id: str, count: int) -> list[pb.TableFinished]:
    """The first ``count`` TableFinished events of the tournament's log, in log order (read with
    WatchTournament); ParlourError when the server refuses."""
    tables: list[pb.TableFinished] = []
    if count <= 0:
        return tables
    request = pb.WatchTournamentRequest(tournament_id=tournament_id, from_version=1)
    async with open_channel(args.server, tls_of(args)) as channel:
        stream = pb_grpc.TournamentServiceStub(channel).WatchTournament(
            request, metadata=api_key_metadata(api_key_of(args))
        )
        try:
            async for reply in stream:
                if reply.event.HasField("table_finished"):
                    tables.append(reply.event.table_finished)
                    if len(tables) == count:
                        break
        except grpc.aio.AioRpcError as error:
            raise ParlourError.from_rpc(error) from None
        finally:
            stream.cancel()
    return tables


def _fail(error: ParlourError) -> int:
    return fail("parlour tournament", error)


async def _create(args: argparse.Namespace) -> int:
    settings = pb.TournamentSettings(
        name=args.name,
        game=args.game,
        table_size=args.table_size,
        format=_FORMATS[args.format],
        rounds=args.rounds,
        duplicate_seeds=args.duplicate,
        max_parallel_games=args.parallel,
        options=dict(pair.split("=", 1) for pair in args.option),
        rules_version=args.rules,
    )
    if args.move_ms:
        settings.time_control.CopyFrom(
            clock_pb2.TimeControl(
                move_ms=args.move_ms,
                bank_ms=args.bank_ms,
                increment_ms=args.increment_ms,
                max_timeouts=args.max_timeouts,
            )
        )
    try:
        reply = await call(args, "CreateTournament", pb.CreateTournamentRequest(settings=settings), args.admin_key)
    except ParlourError as error:
        return _fail(error)
    print(reply.tournament.tournament_id)
    return 0


async def _register(args: argparse.Namespace) -> int:
    request = pb.RegisterBotRequest(tournament_id=args.tournament_id, bot_name=args.name, bot_key=args.key or "")
    try:
        reply = await call(args, "RegisterBot", request, args.admin_key)
    except ParlourError as error:
        return _fail(error)
    print(f"{args.name} registered; bots: {', '.join(reply.tournament.bots)}")
    return 0


async def _start(args: argparse.Namespace) -> int:
    request = pb.StartTournamentRequest(tournament_id=args.tournament_id)
    try:
        reply = await call(args, "StartTournament", request, args.admin_key)
    except ParlourError as error:
        return _fail(error)
    print(f"tournament {reply.tournament.tournament_id} started with {len(reply.tournament.bots)} bots")
    return 0


async def _standings(args: argparse.Namespace) -> int:
    try:
        reply = await call(args, "GetStandings", pb.GetStandingsRequest(tournament_id=args.tournament_id))
    except ParlourError as error:
        return _fail(error)
    print(_progress(reply.tournament))
    print(standings_table(list(reply.standings)))
    return 0


def _progress(tournament: pb.Tournament) -> str:
    running = tournament.games_scheduled - tournament.games_finished
    return (
        f"{tournament.settings.name} [{tournament.tournament_id}] {_STATUS.get(tournament.status, '?')}: "
        f"round {tournament.round}/{tournament.settings.rounds}, games done {tournament.games_finished}, "
        f"running {running}"
    )


def standings_table(standings: list[pb.Standing]) -> str:
    """The standings as a text table, one line per bot: the online rating and the batch strength with its
    95% interval."""
    lines = [
        f"{'rank':>4}  {'bot':<20} {'games':>5} {'wins':>4} {'points':>6} {'score':>6} {'rating':>7} {'mu':>6}"
        f"  {'strength [95% interval]':<24}"
    ]
    for s in standings:
        lines.append(
            f"{s.rank:>4}  {s.bot_name:<20} {s.games:>5} {s.wins:>4} {s.rank_points:>6} {s.score:>6} "
            f"{s.rating:>7.2f} {s.rating_mu:>6.2f}  {s.strength:+.2f} [{s.strength_low:+.2f}, {s.strength_high:+.2f}]"
        )
    return "\n".join(lines)


async def _watch(args: argparse.Namespace) -> int:
    request = pb.WatchTournamentRequest(tournament_id=args.tournament_id)
    display = _Display()
    last: pb.WatchTournamentResponse | None = None
    async with open_channel(args.server, tls_of(args)) as channel:
        try:
            stub = pb_grpc.TournamentServiceStub(channel)
            async for reply in stub.WatchTournament(request, metadata=api_key_metadata(api_key_of(args))):
                last = reply
                display.update(reply)
        except grpc.aio.AioRpcError as error:
            display.close()
            return _fail(ParlourError.from_rpc(error))
    display.close()
    if last is not None:
        print(_progress(last.tournament))
        print(standings_table(list(last.standings)))
    return 0


class _Display:
    """A live view: rich's when available, otherwise one line per finished game."""

    def __init__(self) -> None:
        self._live: Any = None
        try:
            from rich.live import Live
        except ImportError:
            return
        self._live = Live(refresh_per_second=4)
        self._live.start()

    def update(self, reply: pb.WatchTournamentResponse) -> None:
        if self._live is None:
            if reply.event.WhichOneof("kind") in ("table_finished", "finished", "round_started"):
                print(_progress(reply.tournament), flush=True)
            return
        from rich.console import Group
        from rich.table import Table

        table = Table("rank", "bot", "games", "wins", "points", "score", "rating")
        for s in reply.standings:
            table.add_row(
                str(s.rank), s.bot_name, str(s.games), str(s.wins), str(s.rank_points), str(s.score), f"{s.rating:.2f}"
            )
        self._live.update(Group(_progress(reply.tournament), table))

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
