"""``parlour replay export|import|verify|show``: finished games as files, checked by re-running them.

``verify`` needs no server when the rules are installed (the ``parlour-server`` package): a function of
the ``parlour.verifiers`` entry point group re-runs the file in this process, offline. With the SDK
alone (or with ``--remote``) it asks the server given by ``--server`` and says so.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from parlour.channel import api_key_metadata, api_key_of, open_channel, tls_of
from parlour.cli.common import explain
from parlour.client import ParlourError
from parlour.render import render_view
from parlour.v1 import replay_service_pb2, replay_service_pb2_grpc

__all__ = ["VERIFIERS", "local_verifier", "register"]

R = TypeVar("R", bound=Message)
#: Entry point group of in-process verifiers: ``(GameExport) -> VerifyGameResponse``.
VERIFIERS = "parlour.verifiers"
Verifier = Callable[[replay_service_pb2.GameExport], replay_service_pb2.VerifyGameResponse]


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]  # argparse's _SubParsersAction is generic only in typeshed
    """Add ``replay`` and its sub-commands."""
    replay = commands.add_parser(
        "replay",
        help="export, import, verify and show finished games",
        description="Finished games as self-contained files (JSON), verified by re-running every command "
        "through the server's rules from the revealed seed.",
    )
    actions = replay.add_subparsers(dest="action", metavar="ACTION", required=True)
    export = actions.add_parser("export", parents=[server], help="write a finished game to a file")
    export.add_argument("game_id")
    export.add_argument("-o", "--output", help="file to write (default: GAME_ID.parlour.json)")
    export.set_defaults(run=_export)
    imported = actions.add_parser("import", parents=[server], help="verify a file and store it on the server")
    imported.add_argument("file")
    imported.set_defaults(run=_import)
    verify = actions.add_parser(
        "verify",
        parents=[server],
        help="check a file: seed, hash chain, every event",
        description="Re-run every command of the file from its revealed seed and compare every event. With "
        "the rules installed (parlour-server) this runs here, offline; otherwise the server is asked.",
    )
    verify.add_argument("file")
    verify.add_argument("--remote", action="store_true", help="ask the server even when the rules are installed")
    verify.set_defaults(run=_verify)
    show = actions.add_parser("show", parents=[server], help="print the board of a file at a version")
    show.add_argument("file")
    show.add_argument("--at", type=int, default=0, help="show the board just after this event (default: the end)")
    show.add_argument("--seat", type=int, default=None, help="see as this seat (default: as a spectator)")
    show.set_defaults(run=_show)


def _stub(args: argparse.Namespace) -> tuple[grpc.aio.Channel, replay_service_pb2_grpc.ReplayServiceStub]:
    channel = open_channel(args.server, tls_of(args))
    return channel, replay_service_pb2_grpc.ReplayServiceStub(channel)


def _read(path: str) -> replay_service_pb2.GameExport:
    try:
        text = Path(path).read_text(encoding="utf-8")
        return json_format.Parse(text, replay_service_pb2.GameExport())
    except OSError as error:
        raise SystemExit(f"parlour replay: cannot read {path}: {error.strerror}") from None
    except json_format.ParseError as error:
        raise SystemExit(f"parlour replay: {path} is not a Parlour export: {error}") from None


async def _call(args: argparse.Namespace, method: str, request: Message, reply_type: type[R]) -> R | None:
    """Call ``method``; on failure print ``parlour replay ACTION: <sentence>`` and return None."""
    channel, stub = _stub(args)
    async with channel:
        try:
            reply = await getattr(stub, method)(request, metadata=api_key_metadata(api_key_of(args)))
        except grpc.aio.AioRpcError as error:
            print(f"parlour replay {args.action}: {explain(ParlourError.from_rpc(error))}", file=sys.stderr)
            return None
    assert isinstance(reply, reply_type)
    return reply


async def _export(args: argparse.Namespace) -> int:
    request = replay_service_pb2.ExportGameRequest(game_id=args.game_id)
    reply = await _call(args, "ExportGame", request, replay_service_pb2.ExportGameResponse)
    if reply is None:
        return 1
    path = _write(Path(args.output or f"{args.game_id}.parlour.json"), reply.export)
    print(f"wrote {path} ({len(reply.export.entries)} events)")
    return 0


def _write(path: Path, export: replay_service_pb2.GameExport) -> Path:
    path.write_text(json_format.MessageToJson(export) + "\n", encoding="utf-8")
    return path


async def _import(args: argparse.Namespace) -> int:
    request = replay_service_pb2.ImportGameRequest(export=_read(args.file))
    reply = await _call(args, "ImportGame", request, replay_service_pb2.ImportGameResponse)
    if reply is None:
        return 1
    print(f"imported as game {reply.game_id}")
    return 0


def local_verifier() -> Verifier | None:
    """The installed in-process verifier (from the ``parlour.verifiers`` entry points), or None."""
    for point in entry_points(group=VERIFIERS):
        verifier: Verifier = point.load()
        return verifier
    return None


async def _verify(args: argparse.Namespace) -> int:
    export = _read(args.file)
    verifier = None if args.remote else local_verifier()
    if verifier is not None:
        reply, by = verifier(export), "here, offline, by the installed rules"
    else:
        if not args.remote:
            print(
                f"parlour replay verify: the rules are not installed here, so the server at {args.server} "
                "re-runs the game; to verify locally, offline, install the server package "
                "(pip install parlour-server) and run this again",
                file=sys.stderr,
            )
        remote = await _call(args, "VerifyGame", replay_service_pb2.VerifyGameRequest(export=export), _VERIFIED)
        if remote is None:
            return 1
        reply, by = remote, f"by the server at {args.server}"
    if reply.rules_version:
        by += f", rules {reply.rules_version}"
    if reply.verified:
        print(f"verified ({by}): {reply.message}")
        return 0
    where = f" (first bad event: {reply.first_bad_version})" if reply.first_bad_version else ""
    print(f"NOT verified{where} ({by}): {reply.message}")
    return 3


_VERIFIED = replay_service_pb2.VerifyGameResponse


async def _show(args: argparse.Namespace) -> int:
    request = replay_service_pb2.ViewReplayRequest(export=_read(args.file), at_version=args.at)
    if args.seat is not None:
        request.seat = args.seat
    reply = await _call(args, "ViewReplay", request, replay_service_pb2.ViewReplayResponse)
    if reply is None:
        return 1
    print(render_view(reply.view))
    return 0
