"""Running a bot over the network: one BotService stream, with reconnection.

``run_bot`` connects, says hello, and answers every Turn with the bot's choice (one :class:`Bot` per
game, made by ``make``). When the connection drops it connects again (with backoff) and the server sends
the open assignments and turns again, so the bot continues its games. It returns when ``stop`` is set or,
with ``max_games``, once that many of its games have ended. The stream carries the API key, when there is
one, as ``x-parlour-api-key`` (a server run with ``--require-api-key`` registers a new bot name only for a
caller with a key).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc

from parlour.bots.base import Bot
from parlour.channel import Tls, api_key_metadata, api_key_or_env, open_channel
from parlour.client import ParlourError
from parlour.v1 import bot_service_pb2 as pb
from parlour.v1 import bot_service_pb2_grpc as pb_grpc

__all__ = ["BotRun", "run_bot"]

_FATAL = {grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNAUTHENTICATED}


@dataclass
class BotRun:
    """What happened while the bot ran: its ended games (game id -> GameEnded) and the connections made."""

    ended: dict[str, pb.GameEnded] = field(default_factory=dict)
    connections: int = 0
    moves: int = 0
    rejected: int = 0
    #: What the server told the bot beside its games (e.g. that a ladder paused it), in order.
    notices: list[pb.Notice] = field(default_factory=list)
    #: The move sent for each (game, seat, version): a turn seen again after a reconnection (perhaps to
    #: another replica) is answered with the same move and command id, so it is applied at most once.
    sent: dict[tuple[str, int, int], pb.Move] = field(default_factory=dict)


async def run_bot(
    target: str,
    name: str,
    key: str,
    make: Callable[[str], Bot],
    *,
    games: tuple[str, ...] = (),
    stop: asyncio.Event | None = None,
    max_games: int | None = None,
    retry_seconds: float = 0.2,
    tls: Tls | None = None,
    api_key: str | None = None,
    on_welcome: Callable[[], Awaitable[None]] | None = None,
    on_notice: Callable[[pb.Notice], None] | None = None,
) -> BotRun:
    """Play as bot ``name`` on the server at ``target`` (over TLS with ``tls``) until stopped (see the
    module docstring). ``make`` gets a game name and returns the bot for one game. ``api_key`` is sent
    with every connection; when it is None the ``PARLOUR_API_KEY`` environment variable is used, if set
    ("" sends no key). ``on_welcome`` is awaited each time the server welcomes the bot (after every
    connection), e.g. to register it in a ladder; a ParlourError it raises ends the run. ``on_notice`` is
    called with each Notice the server sends (they are kept in :attr:`BotRun.notices` too). Raises ParlourError
    when the server refuses the bot (a wrong bot key, a bad name, a missing or unknown API key)."""
    metadata = api_key_metadata(api_key_or_env(api_key))
    run = BotRun()
    stop = stop or asyncio.Event()
    delay = retry_seconds
    while not stop.is_set() and not _done(run, max_games):
        try:
            hello = pb.Hello(bot_name=name, bot_key=key, games=list(games))
            await _connect(target, hello, make, run, stop, max_games, tls, metadata, (on_welcome, on_notice))
            delay = retry_seconds
        except grpc.aio.AioRpcError as error:
            if error.code() in _FATAL:
                raise ParlourError.from_rpc(error) from None
        except asyncio.InvalidStateError:
            pass  # the stream ended under a write (the server went away): connect again
        if not stop.is_set() and not _done(run, max_games):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
    return run


def _done(run: BotRun, max_games: int | None) -> bool:
    return max_games is not None and len(run.ended) >= max_games


async def _connect(  # noqa: PLR0917 - private; one call site
    target: str,
    hello: pb.Hello,
    make: Callable[[str], Bot],
    run: BotRun,
    stop: asyncio.Event,
    max_games: int | None,
    tls: Tls | None,
    metadata: list[tuple[str, str]],
    hooks: tuple[Callable[[], Awaitable[None]] | None, Callable[[pb.Notice], None] | None],
) -> None:
    """One connection: hello, then answer turns until the stream ends or the bot is done."""
    async with open_channel(target, tls) as channel:
        call = pb_grpc.BotServiceStub(channel).Connect(metadata=metadata)
        await call.write(pb.ConnectRequest(hello=hello))
        run.connections += 1
        bots: dict[str, Bot] = {}
        stopper = asyncio.ensure_future(stop.wait())
        try:
            while not _done(run, max_games):
                reader = asyncio.ensure_future(call.read())
                finished, _ = await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if reader not in finished:
                    reader.cancel()
                    return
                message = reader.result()
                if not isinstance(message, pb.ConnectResponse):
                    return  # grpc.aio.EOF: the server ended the stream
                on_welcome, on_notice = hooks
                if message.HasField("welcome") and on_welcome is not None:
                    await on_welcome()
                if message.HasField("notice"):
                    run.notices.append(message.notice)
                    if on_notice is not None:
                        on_notice(message.notice)
                await _handle(call, message, bots, make, run)
        finally:
            stopper.cancel()
            call.cancel()


async def _handle(
    call: grpc.aio.StreamStreamCall,  # type: ignore[type-arg]  # grpc's stubs make calls generic over message types this code does not name
    message: pb.ConnectResponse,
    bots: dict[str, Bot],
    make: Callable[[str], Bot],
    run: BotRun,
) -> None:
    kind = message.WhichOneof("message")
    if kind == "assignment":
        bots.setdefault(message.assignment.game_id, make(message.assignment.game))
    elif kind == "turn":
        turn = message.turn
        key = (turn.game_id, turn.seat, turn.view.version)
        move = run.sent.get(key)
        if move is None:
            bot = bots.setdefault(turn.game_id, make(turn.view.game))
            move = pb.Move(
                game_id=turn.game_id,
                seat=turn.seat,
                command=bot.choose(turn.view),
                expected_version=turn.view.version,
                command_id=uuid.uuid4().hex,
            )
            run.sent = {k: v for k, v in run.sent.items() if k[:2] != key[:2]}  # older turns of this seat
            run.sent[key] = move
        await call.write(pb.ConnectRequest(move=move))
        run.moves += 1
    elif kind == "move_rejected":
        run.rejected += 1
    elif kind == "game_ended":
        run.ended[message.game_ended.game_id] = message.game_ended
        bots.pop(message.game_ended.game_id, None)
        run.sent = {k: v for k, v in run.sent.items() if k[0] != message.game_ended.game_id}
