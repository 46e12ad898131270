"""``parlour replay export|import|verify|show``: finished games as files, checked by re-running them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from parlour.client import ParlourError
from parlour.render import render_view
from parlour.v1 import replay_service_pb2, replay_service_pb2_grpc

__all__ = ["register"]

R = TypeVar("R", bound=Message)


def register(commands: argparse._SubParsersAction, server: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
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
    verify = actions.add_parser("verify", parents=[server], help="check a file: seed, hash chain, every event")
    verify.add_argument("file")
    verify.set_defaults(run=_verify)
    show = actions.add_parser("show", parents=[server], help="print the board of a file at a version")
    show.add_argument("file")
    show.add_argument("--at", type=int, default=0, help="show the board just after this event (default: the end)")
    show.add_argument("--seat", type=int, default=None, help="see as this seat (default: as a spectator)")
    show.set_defaults(run=_show)


def _stub(server: str) -> tuple[grpc.aio.Channel, replay_service_pb2_grpc.ReplayServiceStub]:
    channel = grpc.aio.insecure_channel(server)
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
    channel, stub = _stub(args.server)
    async with channel:
        try:
            reply = await getattr(stub, method)(request)
        except grpc.aio.AioRpcError as error:
            print(f"parlour replay {args.action}: {ParlourError.from_rpc(error)}", file=sys.stderr)
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


async def _verify(args: argparse.Namespace) -> int:
    request = replay_service_pb2.VerifyGameRequest(export=_read(args.file))
    reply = await _call(args, "VerifyGame", request, replay_service_pb2.VerifyGameResponse)
    if reply is None:
        return 1
    if reply.verified:
        print(f"verified: {reply.message}")
        return 0
    where = f" (first bad event: {reply.first_bad_version})" if reply.first_bad_version else ""
    print(f"NOT verified{where}: {reply.message}")
    return 3


async def _show(args: argparse.Namespace) -> int:
    request = replay_service_pb2.ViewReplayRequest(export=_read(args.file), at_version=args.at)
    if args.seat is not None:
        request.seat = args.seat
    reply = await _call(args, "ViewReplay", request, replay_service_pb2.ViewReplayResponse)
    if reply is None:
        return 1
    print(render_view(reply.view))
    return 0
