"""``parlour ladder``: create a standing ladder, show its standings, and recompute them offline from the
exports of its games (``verify``), so that anyone can check the leaderboard rather than trust it.

A ladder is a tournament of the ladder format (TournamentService): bots join with
``parlour bot --ladder LADDER_ID`` and keep getting games while they are connected.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from google.protobuf import json_format

from parlour.cli.common import fail
from parlour.cli.tournament import call, finished_tables, standings_table
from parlour.client import ParlourError
from parlour.v1 import clock_pb2, replay_service_pb2
from parlour.v1 import tournament_service_pb2 as pb

if TYPE_CHECKING:  # the ratings need the SDK's "ratings" extra, imported where used
    from parlour.ratings import Placing

__all__ = ["register"]

#: How far the server's batch strengths may be from the recomputed ones (floating point, not rounding).
TOLERANCE = 1e-6


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add ``ladder`` with its sub-commands."""
    parser = commands.add_parser(
        "ladder", help="standing ladders of bots", description="Standing ladders of bots (see parlour bot --ladder)."
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = actions.add_parser("create", parents=[server], help="create and start a ladder (admin)")
    create.add_argument("game", help="game name, e.g. oldmen")
    create.add_argument(
        "--admin-key", default=os.environ.get("PARLOUR_ADMIN_KEY"), help="the server's admin key (or PARLOUR_ADMIN_KEY)"
    )
    create.add_argument("--name", default="", help="display name (default: '<game> ladder')")
    create.add_argument("--seats", required=True, metavar="N or MIN-MAX", help="seats per table, e.g. 4 or 3-4")
    create.add_argument("--move-ms", type=int, default=0, help="time per move in ms (0: no clock)")
    create.add_argument("--max-games-per-bot", type=int, default=0, help="tables a bot plays at once (0: 1)")
    create.add_argument("--max-bots-per-key", type=int, default=0, help="bots one API key may register (0: no limit)")
    create.add_argument(
        "--pause-after-timeouts",
        type=int,
        default=0,
        metavar="N",
        help="pause a bot whose clock ran out in N of its games in a row (0: 3; needs --move-ms)",
    )
    create.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal once per seat rotation by the same bots, one table after another (withheld until "
        "the deal's last table ends)",
    )
    create.add_argument("--rules", default="", metavar="VERSION", help="the rules version (default: the current)")
    create.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    create.set_defaults(run=_create)
    standings = actions.add_parser("standings", parents=[server], help="ranks, ratings and their uncertainty")
    standings.add_argument("ladder_id")
    standings.set_defaults(run=_standings)
    verify = actions.add_parser(
        "verify",
        parents=[server],
        help="recompute the batch ratings from the exports of the ladder's games and compare them with the server's",
    )
    verify.add_argument("ladder_id")
    verify.add_argument("--exports", required=True, metavar="DIR", help="a folder of exports (parlour replay export)")
    verify.set_defaults(run=_verify)


def _seats(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise SystemExit(f"parlour ladder create: --seats takes N or MIN-MAX (e.g. 3-4), not {text!r}") from None


async def _create(args: argparse.Namespace) -> int:
    smallest, largest = _seats(args.seats)
    settings = pb.TournamentSettings(
        name=args.name or f"{args.game} ladder",
        game=args.game,
        table_size=largest,
        min_table_size=smallest,
        format=pb.TOURNAMENT_FORMAT_LADDER,
        max_games_per_bot=args.max_games_per_bot,
        max_bots_per_key=args.max_bots_per_key,
        pause_after_timeouts=args.pause_after_timeouts,
        duplicate_seeds=args.duplicate,
        options=dict(pair.split("=", 1) for pair in args.option),
        rules_version=args.rules,
    )
    if args.move_ms:
        settings.time_control.CopyFrom(clock_pb2.TimeControl(move_ms=args.move_ms))
    try:
        created = await call(args, "CreateTournament", pb.CreateTournamentRequest(settings=settings), args.admin_key)
        ladder_id = created.tournament.tournament_id
        await call(args, "StartTournament", pb.StartTournamentRequest(tournament_id=ladder_id), args.admin_key)
    except ParlourError as error:
        return fail("parlour ladder create", error)
    print(ladder_id)
    return 0


async def _standings(args: argparse.Namespace) -> int:
    try:
        reply = await call(args, "GetStandings", pb.GetStandingsRequest(tournament_id=args.ladder_id))
    except ParlourError as error:
        return fail("parlour ladder standings", error)
    ladder = reply.tournament
    name, rules = ladder.settings.name, ladder.settings.rules_version
    print(f"{name} [{ladder.tournament_id}]: {ladder.games_finished} games rated, rules {rules}")
    print(standings_table(list(reply.standings)))
    return 0


async def _verify(args: argparse.Namespace) -> int:
    from parlour.cli.replay import local_verifier

    missing = _missing()
    if missing:
        print(f"parlour ladder verify: {missing}", file=sys.stderr)
        return 2
    from parlour.ratings import RatedGame, batch_ratings

    exports = {e.game_id: e for e in await asyncio.to_thread(_read_all, Path(args.exports))}
    try:
        reply = await call(args, "GetStandings", pb.GetStandingsRequest(tournament_id=args.ladder_id))
        tables = await finished_tables(args, args.ladder_id, reply.tournament.games_finished)
    except ParlourError as error:
        return fail("parlour ladder verify", error)
    problem = _match_exports(tables, exports)
    if problem:
        print(f"parlour ladder verify: {problem}", file=sys.stderr)
        return 4
    verifier = local_verifier()
    assert verifier is not None  # _missing said so
    games = []
    for table in tables:
        export = exports[table.game_id]
        checked = await asyncio.to_thread(verifier, export)
        if not checked.verified:
            print(f"game {export.game_id}: NOT verified: {checked.message}", file=sys.stderr)
            return 3
        games.append(RatedGame(export.game_id, _placings(export)))
    if extra := len(exports) - len(games):
        print(f"{extra} exports are not among the {len(games)} games the standings rate; left out")
    recomputed = batch_ratings(games)
    differ = [
        s.bot_name
        for s in reply.standings
        if s.bot_name in recomputed
        and max(abs(s.strength - recomputed[s.bot_name].strength), abs(s.strength_low - recomputed[s.bot_name].low))
        > TOLERANCE
    ]
    for bot, rating in sorted(recomputed.items(), key=lambda item: -item[1].strength):
        print(f"{bot:<20} {rating.games:>5}  {rating.strength:+.4f} [{rating.low:+.4f}, {rating.high:+.4f}]")
    if differ or set(recomputed) - {s.bot_name for s in reply.standings}:
        print(f"the server's standings differ for: {', '.join(differ) or 'bots it does not list'}", file=sys.stderr)
        return 5
    print(f"{len(games)} games verified; the server's batch ratings match the recomputed ones")
    return 0


def _placings(export: replay_service_pb2.GameExport) -> tuple[Placing, ...]:
    """Who placed where in an exported game, best first."""
    from parlour.ratings import Placing

    return tuple(Placing(export.player_names[r.seat], r.rank) for r in export.results)


def _match_exports(tables: list[pb.TableFinished], exports: dict[str, replay_service_pb2.GameExport]) -> str:
    """Why ``exports`` are not the ladder's rated games (``tables``, from its log), in a sentence; "" when
    every rated game has an export with the results the log recorded (other exports are left out: games
    rated after the standings were read, or not the ladder's)."""
    from parlour.ratings import Placing

    rated = {t.game_id for t in tables}
    if missing := sorted(rated - set(exports)):
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        return (
            f"{len(missing)} of the ladder's {len(rated)} rated games have no export ({shown}): "
            "export each (parlour replay export)"
        )
    for table in tables:
        logged = tuple(Placing(r.player_name, r.rank) for r in table.results)
        if _placings(exports[table.game_id]) != logged:
            return f"game {table.game_id}: the export's results are not those the ladder recorded"
    return ""


def _missing() -> str:
    """What this machine lacks to verify a ladder offline, in a sentence ("" when nothing)."""
    from parlour.cli.replay import local_verifier

    try:
        import parlour.ratings  # noqa: F401 - only whether it imports
    except ImportError as error:
        return f"{error.name} is missing: install the ratings (pip install 'parlour-client[ratings]')"
    if local_verifier() is None:
        return "the rules are not installed here: install them (pip install parlour-server) to verify the games"
    return ""


def _read_all(folder: Path) -> list[replay_service_pb2.GameExport]:
    """Every export (``*.json``) in ``folder``."""
    return [_read(path) for path in sorted(folder.glob("*.json"))]


def _read(path: Path) -> replay_service_pb2.GameExport:
    try:
        return json_format.Parse(path.read_text(encoding="utf-8"), replay_service_pb2.GameExport())
    except (OSError, json_format.ParseError) as error:
        raise SystemExit(f"parlour ladder verify: {path} is not a readable Parlour export: {error}") from None
