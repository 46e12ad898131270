"""``parlour play``: create a game and let bots play every seat over the network."""

from __future__ import annotations

import argparse
import asyncio
import sys

from parlour.bots import make_bot
from parlour.channel import api_key_of, tls_of
from parlour.cli.common import fail
from parlour.client import GameClient, ParlourError
from parlour.play import play_seat

__all__ = ["register"]


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add ``play``."""
    parser = commands.add_parser(
        "play",
        parents=[server],
        help="create a game and play it with bots",
        description="Create a game on the server, give every seat to a bot, play to the end and print the "
        "results and the game id.",
    )
    parser.add_argument("game", help="game name, e.g. oldmen")
    parser.add_argument(
        "--bots", required=True, help="one strategy per seat, comma-separated, e.g. random,random,random"
    )
    parser.add_argument("--seed", default=None, help="seed of the deal (text, 16 to 256 bytes); random when not given")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option; repeatable")
    parser.set_defaults(run=_run)


def _options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--option needs NAME=VALUE, got {pair!r}")
        options[name] = value
    return options


async def _run(args: argparse.Namespace) -> int:
    strategies = [s.strip() for s in args.bots.split(",") if s.strip()]
    try:
        options = _options(args.option)
        bots = [
            make_bot(s, args.game, seed=f"{args.seed}-{i}" if args.seed else None) for i, s in enumerate(strategies)
        ]
    except ValueError as error:
        print(f"parlour play: {error}", file=sys.stderr)
        return 2
    seed = args.seed.encode() if args.seed else None
    try:
        async with GameClient(args.server, tls=tls_of(args), api_key=api_key_of(args)) as client:
            summary = await client.create_game(args.game, len(bots), options, seed)
            game_id = summary.game_id
            seats = [await client.claim_seat(game_id, f"{s}-{i}", seat=i) for i, s in enumerate(strategies)]
            await asyncio.gather(
                *(play_seat(client, game_id, seat, token, bot) for (seat, token), bot in zip(seats, bots, strict=True))
            )
            final = await client.game(game_id)
    except ParlourError as error:
        return fail("parlour play", error)
    print(f"game {game_id} ({args.game}, {len(bots)} seats) is over")
    print(f"{'rank':>4}  {'seat':>4}  {'score':>5}  player")
    for result in final.results:
        print(f"{result.rank:>4}  {result.seat:>4}  {result.score:>5}  {result.player_name}")
    print(f"game id: {game_id}")
    return 0
