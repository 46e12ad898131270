"""``parlour bot``: run a reference bot (or any strategy) over the network until stopped."""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import sys

from parlour.bots import Bot, make_bot
from parlour.channel import api_key_of, tls_of
from parlour.cli.common import fail
from parlour.cli.tournament import call
from parlour.client import GameClient, ParlourError
from parlour.play import play_seat
from parlour.runner import run_bot
from parlour.v1 import bot_service_pb2, tournament_service_pb2

__all__ = ["register"]


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add ``bot``."""
    parser = commands.add_parser(
        "bot",
        parents=[server],
        help="connect a bot to the server and play its assigned games, or one open seat (--join)",
        description="Connect as a bot, play every seat the server assigns to it (tournament games), and "
        "reconnect when the connection drops. Runs until interrupted (or --games games have ended). With "
        "--join GAME_ID it instead claims an open seat of that game (e.g. one left open in the web page's "
        "new table form) and plays it to the end; no bot key is needed then.",
    )
    parser.add_argument("--name", required=True, help="the bot's name on the server (with --join: the player's)")
    parser.add_argument("--join", metavar="GAME_ID", default=None, help="claim an open seat of this game and play it")
    parser.add_argument(
        "--seat", type=int, default=None, help="with --join: the seat to claim (default: the lowest open)"
    )
    parser.add_argument(
        "--key",
        default=os.environ.get("PARLOUR_BOT_KEY"),
        help="the bot's secret key, 16+ characters (or PARLOUR_BOT_KEY); the first use of a name sets it",
    )
    parser.add_argument(
        "--strategy", default="random", help="random, greedy or half-greedy (greedy half the time; default random)"
    )
    parser.add_argument("--game", action="append", default=[], help="a game the bot plays; repeatable (default any)")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games have ended")
    parser.add_argument("--seed", default=None, help="seed of the bot's own random choices")
    parser.add_argument(
        "--ladder",
        metavar="LADDER_ID",
        action="append",
        default=[],
        help="join this ladder (parlour ladder create) and keep getting its games while connected; repeatable",
    )
    parser.set_defaults(run=_run)


async def _run(args: argparse.Namespace) -> int:
    if args.join:
        return await _join(args)
    if args.seat is not None:
        print("parlour bot: --seat goes with --join GAME_ID", file=sys.stderr)
        return 2
    if not args.key:
        print("parlour bot: give --key or set PARLOUR_BOT_KEY", file=sys.stderr)
        return 2
    for game in args.game or []:
        try:
            make_bot(args.strategy, game)
        except ValueError as error:
            print(f"parlour bot: {error}", file=sys.stderr)
            return 2

    def make(game: str) -> Bot:
        return make_bot(args.strategy, game, seed=args.seed)

    print(f"bot {args.name} ({args.strategy}) connecting to {args.server}", flush=True)
    try:
        run = await run_bot(
            args.server,
            args.name,
            args.key,
            make,
            games=tuple(args.game),
            max_games=args.games,
            tls=tls_of(args),
            api_key=api_key_of(args),
            on_welcome=functools.partial(_join_ladders, args) if args.ladder else None,
            on_notice=_say_notice,
        )
    except ParlourError as error:
        return fail("parlour bot", error)
    print(f"bot {args.name}: {len(run.ended)} games ended, {run.moves} moves, {run.connections} connections")
    return 0


def _say_notice(notice: bot_service_pb2.Notice) -> None:
    """Print what the server told the bot (e.g. that a ladder paused it, and why)."""
    print(f"parlour bot: {notice.reason}: {notice.message}", file=sys.stderr, flush=True)


async def _join_ladders(args: argparse.Namespace) -> None:
    """Register the bot in each of ``args.ladder`` (again after each connection: it is idempotent, and
    resumes a bot the ladder paused). Over the server's rate of registrations (limit/rate, e.g. when many
    bots of one client reconnect at once) it waits and tries again, up to a minute."""
    for ladder in args.ladder:
        request = tournament_service_pb2.RegisterBotRequest(tournament_id=ladder, bot_name=args.name, bot_key=args.key)
        for wait in (1, 2, 4, 8, 16, 32, 0):
            try:
                await call(args, "RegisterBot", request)
                break
            except ParlourError as error:
                if error.reason != "limit/rate" or not wait:
                    raise
                print(f"parlour bot: {error.message}; joining ladder {ladder} in {wait} s", file=sys.stderr, flush=True)
                await asyncio.sleep(wait)


async def _join(args: argparse.Namespace) -> int:
    """Claim a seat of game ``--join`` and play it with the strategy until the game is over."""
    try:
        async with GameClient(args.server, tls=tls_of(args), api_key=api_key_of(args)) as client:
            summary = await client.game(args.join)
            try:
                bot = make_bot(args.strategy, summary.game, seed=args.seed)
            except ValueError as error:
                print(f"parlour bot: {error}", file=sys.stderr)
                return 2
            seat, token = await client.claim_seat(args.join, args.name, seat=args.seat)
            print(f"bot {args.name} ({args.strategy}) plays seat {seat} of game {args.join}", flush=True)
            final = await play_seat(client, args.join, seat, token, bot)
    except ParlourError as error:
        return fail("parlour bot", error)
    ranks = ", ".join(f"{r.rank}. {r.player_name} {r.score}" for r in final.results)
    print(f"game {args.join} is over: {ranks}")
    return 0
