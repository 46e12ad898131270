"""``parlour admin``: the server's AdminService (API keys, bot names, seat tokens), with the admin key.

Every action sends the server's admin key (``--admin-key`` or ``PARLOUR_ADMIN_KEY``: the key
``parlour serve --admin-key`` was given) as ``x-parlour-admin-key``, and no API key.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable

from parlour.channel import tls_of
from parlour.cli.common import fail
from parlour.client import ADMIN_KEY_ENV, AdminClient, ParlourError

__all__ = ["register"]

_NO_ADMIN_KEY = (
    "parlour admin: this needs the server's admin key (the one `parlour serve --admin-key` was given): "
    f"give --admin-key KEY or set {ADMIN_KEY_ENV}"
)


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add ``admin`` and its actions (``server``: the options naming the server and TLS)."""
    parser = commands.add_parser(
        "admin",
        help="API keys, bot names and seat tokens (the server's admin key)",
        description="The server's admin calls (AdminService). Each needs the server's admin key: --admin-key "
        f"or {ADMIN_KEY_ENV}. A server run with --require-api-key wants an API key from its clients to create "
        "games, claim seats and register new bot names: make one here and give it to its user, who passes it "
        "with --api-key (or PARLOUR_API_KEY).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    admin = argparse.ArgumentParser(add_help=False, parents=[server])
    admin.add_argument(
        "--admin-key",
        default=os.environ.get(ADMIN_KEY_ENV),
        help=f"the server's admin key (or {ADMIN_KEY_ENV})",
    )
    create = actions.add_parser(
        "create-key",
        parents=[admin],
        help="make an API key; prints the key (shown only this once)",
        description="Make an API key named NAME (who it is for) and print it on stdout, alone. The server "
        "keeps only its hash: the key cannot be shown again.",
    )
    create.add_argument("name", help="1 to 64 letters, digits, '-', '_' or '.'")
    create.set_defaults(run=_create)
    listed = actions.add_parser("list-keys", parents=[admin], help="print the API keys' names, one a line")
    listed.set_defaults(run=_list)
    revoke = actions.add_parser("revoke-key", parents=[admin], help="revoke an API key at once")
    revoke.add_argument("name")
    revoke.set_defaults(run=_revoke)
    release = actions.add_parser(
        "release-bot",
        parents=[admin],
        help="forget a bot name's key, so the name can be registered anew",
        description="Forget the key of the bot named NAME: the next bot to connect with that name registers "
        "it with its own key. Its tournament registrations and assignments stay.",
    )
    release.add_argument("name")
    release.set_defaults(run=_release)
    seat = actions.add_parser(
        "revoke-seat",
        parents=[admin],
        help="revoke a seat's token",
        description="Revoke the token of SEAT in game GAME_ID: it no longer acts or sees for the seat. The "
        "seat stays taken; its clock, if the game has one, plays it.",
    )
    seat.add_argument("game_id")
    seat.add_argument("seat", type=int)
    seat.set_defaults(run=_revoke_seat)


async def _with_admin(args: argparse.Namespace, action: Callable[[AdminClient], Awaitable[None]]) -> int:
    """Run ``action`` with an admin client; 2 when there is no admin key, 1 when the server refuses."""
    if not (args.admin_key or "").strip():
        print(_NO_ADMIN_KEY, file=sys.stderr)
        return 2
    try:
        async with AdminClient(args.server, admin_key=args.admin_key, tls=tls_of(args)) as client:
            await action(client)
    except ParlourError as error:
        return fail(f"parlour admin {args.action}", error)
    return 0


async def _create(args: argparse.Namespace) -> int:
    async def create(client: AdminClient) -> None:
        key = await client.create_api_key(args.name)
        print(key, flush=True)
        print(
            f"API key {args.name!r} made; it is shown only this once. Its user passes it with --api-key or "
            "PARLOUR_API_KEY.",
            file=sys.stderr,
        )

    return await _with_admin(args, create)


async def _list(args: argparse.Namespace) -> int:
    async def names(client: AdminClient) -> None:
        found = await client.api_keys()
        for name in found:
            print(name)
        if not found:
            print("no API keys (parlour admin create-key NAME makes one)", file=sys.stderr)

    return await _with_admin(args, names)


async def _revoke(args: argparse.Namespace) -> int:
    async def revoke(client: AdminClient) -> None:
        await client.revoke_api_key(args.name)
        print(f"API key {args.name!r} revoked")

    return await _with_admin(args, revoke)


async def _release(args: argparse.Namespace) -> int:
    async def release(client: AdminClient) -> None:
        await client.release_bot_name(args.name)
        print(f"bot name {args.name!r} released: the next bot to connect with it registers it anew")

    return await _with_admin(args, release)


async def _revoke_seat(args: argparse.Namespace) -> int:
    async def revoke(client: AdminClient) -> None:
        await client.revoke_seat_token(args.game_id, args.seat)
        print(f"the token of seat {args.seat} of game {args.game_id} is revoked (the seat stays taken)")

    return await _with_admin(args, revoke)
