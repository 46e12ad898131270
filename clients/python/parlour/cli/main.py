"""``parlour``: play, watch and inspect games on a Parlour server.

Sub-commands of other installed packages (``parlour serve`` from the server) are found through the
``parlour.commands`` entry point group: each entry point is a function that adds its sub-parser.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points

from parlour.channel import add_api_key_argument, add_tls_arguments
from parlour.cli import admin, bot, inspect, ladder, play, replay, tournament

__all__ = ["main"]

DEFAULT_SERVER = "localhost:50051"


def build_parser() -> argparse.ArgumentParser:
    """The parser with every sub-command, including installed plugins."""
    parser = argparse.ArgumentParser(prog="parlour", description="Play, watch and inspect Parlour games.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    connection = argparse.ArgumentParser(add_help=False)
    connection.add_argument(
        "--server",
        default=os.environ.get("PARLOUR_SERVER", DEFAULT_SERVER),
        help="gRPC address of the server, or of several replicas as host:port,host:port (calls are spread "
        f"over them and retried on another when one is unavailable; default $PARLOUR_SERVER or {DEFAULT_SERVER})",
    )
    add_tls_arguments(connection)
    # Every command that talks to the server as a client sends the API key; `parlour admin` sends the admin key.
    server = argparse.ArgumentParser(add_help=False, parents=[connection])
    add_api_key_argument(server)
    play.register(commands, server)
    inspect.register(commands, server)
    bot.register(commands, server)
    tournament.register(commands, server)
    ladder.register(commands, server)
    replay.register(commands, server)
    admin.register(commands, connection)
    for plugin in entry_points(group="parlour.commands"):
        plugin.load()(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        result = args.run(args)
        if asyncio.iscoroutine(result):
            result = asyncio.run(result)
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
