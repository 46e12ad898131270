"""Bots over the network: identities, seat assignments, and the session of a connected bot.

A bot proves who it is with its bot key (the first Connect of a name registers the key; only its hash is
kept), and says which games it plays (remembered, so a tournament of another game refuses it). A name is
the key's for good when the admin or a caller with an API key registered it, or once the bot entered a
tournament; a name first connected without an API key (an open server) is only held by its session while
it is open (see :meth:`Bots.authenticate`), so names cannot be flooded or squatted for nothing.
Tournaments assign seats to bots (:meth:`Bots.assign`); a connected bot's session (:meth:`Bots.session`)
sends each unfinished assignment, then a Turn whenever one of its seats must act, and applies the bot's
Moves through the ordinary game use case with the seat's token. A session started again with the same
name (a reconnect) sends every unfinished assignment and open turn again; an older session of the same
bot in this process is ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from engines.registry import get_game
from parlour.v1 import bot_service_pb2 as pb
from parlour.v1 import errors_pb2, game_pb2
from service.app.api_keys import CALLER_KEY, ApiKeys
from service.app.clocks import Clocks
from service.app.errors import ServiceError, loggable
from service.app.games import Games
from service.app.sizes import SizeLimits
from service.app.timestamps import timestamp
from service.app.tokens import hash_token, token_matches
from service.store.bot_port import AssignmentRecord, BotNotice, BotStore

__all__ = ["Bots"]

log = structlog.get_logger("parlour.bots")


@dataclass
class _Session:
    """One connected bot: its outgoing queue, its seats by (game, seat) and their tasks."""

    name: str
    #: Who holds the bot's name while the session is open, when it is only held (see Bots.authenticate).
    holder: str = field(default_factory=lambda: secrets.token_hex(8))
    outbox: asyncio.Queue[pb.ConnectResponse] = field(default_factory=asyncio.Queue)
    seats: dict[tuple[str, int], AssignmentRecord] = field(default_factory=dict)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    ended: asyncio.Event = field(default_factory=asyncio.Event)

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` for the session; if it fails, the session ends (the bot reconnects and is sent
        its assignments and turns again)."""
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("bot session failed", bot=self.name, error=loggable(task.exception()))  # type: ignore[arg-type]  # a done task's exception() is an exception here, never None
            self.ended.set()


#: How long a name held by a session outlives the session's last renewal (a session renews it every third
#: of that; one that ends lets it go at once, one whose process stopped loses it after this long).
HOLD_MS = 60_000
#: How long a bot counts as connected after its session last said so (every third of that while it is
#: open; a session that ends says so at once, one whose process stopped lapses after this long).
PRESENCE_MS = 6_000


class Bots:
    """The bot use cases over the games application and the bot store."""

    def __init__(
        self,
        store: BotStore,
        games: Games,
        clocks: Clocks,
        keys: ApiKeys | None = None,
        *,
        sizes: SizeLimits | None = None,
    ) -> None:
        """With ``keys`` requiring API keys, a new bot name is registered only by a caller with a key;
        ``sizes`` bounds the length of bot names."""
        self._keys = keys
        self._sizes = sizes or SizeLimits()
        self._store = store
        self._games = games
        self._clocks = clocks
        self._sessions: dict[str, _Session] = {}

    async def authenticate(
        self, name: str, key: str, *, register: bool = False, by_admin: bool = False, holder: str = ""
    ) -> bool:
        """Check the bot's key. Only with ``register`` is a new name registered (a bot's Connect, the
        admin's RegisterBot; never a read call), and then:

        - for good, when ``by_admin`` or the caller sent a valid API key (with ``--require-api-key``, the
          only ways: otherwise auth/missing_api_key);
        - otherwise (an open server's Connect without a key) held by the session ``holder`` only: kept
          while the session is open and let go when it ends (:data:`HOLD_MS` after a process stopped). So
          a client holds at most as many such names as it may hold bot streams
          (``--max-streams-per-client``), and a name no one uses is free again for anyone.

        A held name becomes the key's for good when its bot enters a tournament (:meth:`bind`) or connects
        with an API key. True when the name is held by ``holder`` (the session must renew it and let it
        go). Raises request/invalid, bot/unknown (a new name without ``register``), auth/missing_api_key
        or auth/bad_bot_key."""
        self._sizes.check_bot_name(name)
        if not 16 <= len(key) <= 256:
            raise ServiceError("request/invalid", "a bot key is 16 to 256 characters; pick a long random secret")
        for_good = by_admin or bool(CALLER_KEY.get())
        stored = await self._store.key_hash(name, None)
        if stored is None and register and (for_good or holder):
            if self._keys is not None and not by_admin:
                self._keys.check_new_bot_name(name)
            hold = ("", 0) if for_good else (holder, HOLD_MS)
            stored = await self._store.key_hash(name, hash_token(key), holder=hold[0], hold_ms=hold[1])
        if stored is None:
            raise ServiceError(
                "bot/unknown",
                f"there is no bot named {name!r}: connect it once (BotService.Connect registers its name and key) "
                "and register it while it is connected, or have the admin register it",
            )
        if not token_matches(key, stored):
            raise ServiceError("auth/bad_bot_key", f"a bot named {name!r} exists with another key; pick another name")
        if for_good:
            await self._store.bind(name)
            return False
        return bool(holder) and await self._store.hold(name, holder, HOLD_MS)

    async def bind(self, name: str) -> None:
        """Make bot ``name``'s name its key's for good (it enters a tournament, which gives it seats), even
        if it was only held by its session; bot/unknown if there is no such bot (any more)."""
        if not await self._store.bind(name):
            raise ServiceError(
                "bot/unknown", f"there is no bot named {name!r}: its connection ended; connect it and try again"
            )

    async def release(self, name: str) -> None:
        """Forget bot ``name``'s key (the admin's call), so the name can be registered anew; bot/unknown
        when there is no such bot. A name longer than the bot name limit may be released (it was
        registered before the limit was lowered)."""
        self._sizes.check_bot_name(name, any_length=True)
        if not await self._store.release(name):
            raise ServiceError("bot/unknown", f"there is no bot named {name!r}")

    async def present(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` whose bots are connected now, to any server (see :data:`PRESENCE_MS`)."""
        return await self._store.present(names) if names else set()

    async def check_plays(self, name: str, game: str) -> None:
        """Raise request/invalid if bot ``name`` said (in its last Hello) that it does not play ``game``."""
        games = await self._store.games(name)
        if games and game not in games:
            raise ServiceError(
                "request/invalid",
                f"bot {name!r} said it plays only {', '.join(games)}, not {game}; connect it once with {game} "
                "among its games (or with no games listed) before registering it",
            )

    async def assign(self, name: str, record: AssignmentRecord) -> bool:
        """Give ``record``'s seat to bot ``name``; its sessions (on any server) receive it. A seat the bot
        already has is not given again (returns False)."""
        return await self._store.assign(name, record)

    async def assignments(self, name: str, key: str) -> list[pb.Assignment]:
        """The bot's assignments in games that are not over."""
        await self.authenticate(name, key)
        entries = await self._store.assignments(name)
        return [
            _assignment(r)
            for entry_id, r in entries
            if isinstance(r, AssignmentRecord) and not await self._over(name, entry_id, r)
        ]

    async def notify(self, name: str, notice: BotNotice) -> None:
        """Tell bot ``name``'s open sessions (on any server) ``notice``; a bot not connected now is not told
        it later (what it is about shows elsewhere, e.g. a ladder's standings)."""
        await self._store.notify(name, notice)

    async def _over(self, name: str, entry_id: str, record: AssignmentRecord) -> bool:
        """Whether the assignment's game is over: finished, or gone (retention deletes finished games).
        The assignment of a game that is gone is dropped from the bot's stream, so a bot's sessions do
        not read it again."""
        try:
            summary = await self._games.get_game(record.game_id)
        except ServiceError as error:
            if error.reason != "game/not_found":
                raise
            await self._store.drop_assignment(name, entry_id, record)
            return True
        return summary.status == game_pb2.GAME_STATUS_FINISHED

    # --- the stream of a connected bot ---------------------------------------------------------------

    async def session(self, hello: pb.Hello, moves: AsyncIterator[pb.Move]) -> AsyncIterator[pb.ConnectResponse]:
        """Serve a connected bot: yields what to send it until it disconnects (``moves`` ends) or a newer
        session of the same bot starts here."""
        for game in hello.games:
            if get_game(game) is None:
                raise ServiceError("request/invalid", f"there is no game {game[:64]!r}; ListGameTypes shows the games")
        session = _Session(hello.bot_name)
        held = await self.authenticate(hello.bot_name, hello.bot_key, register=True, holder=session.holder)
        await self._store.set_games(hello.bot_name, sorted(set(hello.games)))
        previous = self._sessions.get(session.name)
        if previous is not None:
            previous.ended.set()
        self._sessions[session.name] = session
        log.info("bot connected", bot=session.name)
        await session.outbox.put(pb.ConnectResponse(welcome=pb.Welcome(bot_name=session.name)))
        session.spawn(self._follow_assignments(session))
        session.spawn(self._read_moves(session, moves))
        session.spawn(self._keep_present(session))
        if held:
            session.spawn(self._keep_name(session))
        waiting: list[asyncio.Future[Any]] = []
        try:
            while not session.ended.is_set():
                getter = asyncio.ensure_future(session.outbox.get())
                waiting = [getter, asyncio.ensure_future(session.ended.wait())]
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    break
                yield getter.result()
        finally:
            for future in waiting:
                future.cancel()
            session.ended.set()
            for task in list(session.tasks):
                task.cancel()
            if self._sessions.get(session.name) is session:
                del self._sessions[session.name]
            with contextlib.suppress(Exception):  # else it lapses by itself
                await self._store.mark_absent(session.name, session.holder)
            if held:
                with contextlib.suppress(Exception):  # else the hold lapses by itself
                    await self._store.let_go(session.name, session.holder)
            log.info("bot disconnected", bot=session.name)

    async def _keep_name(self, session: _Session) -> None:
        """Renew the session's hold on its bot's name until it ends or the hold passes on (the bot was
        bound for good, or a newer session on another server took it over)."""
        while await self._store.renew(session.name, session.holder, HOLD_MS):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.ended.wait(), HOLD_MS / 3000)
            if session.ended.is_set():
                return

    async def _keep_present(self, session: _Session) -> None:
        """Say the bot is connected until the session ends (ladders seat only connected bots)."""
        while not session.ended.is_set():
            await self._store.mark_present(session.name, session.holder, PRESENCE_MS)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.ended.wait(), PRESENCE_MS / 3000)

    async def _follow_assignments(self, session: _Session) -> None:
        """Send the bot each unfinished assignment (and play its seat), and each notice added to its stream
        while the session is open."""
        last = "0"
        records = await self._store.assignments(session.name)
        live = False  # the first read is the past: its notices were for earlier sessions
        while True:
            for entry_id, record in records:
                last = entry_id
                if isinstance(record, BotNotice):
                    if live:
                        await session.outbox.put(pb.ConnectResponse(notice=_notice(record)))
                    continue
                if (record.game_id, record.seat) in session.seats or await self._over(session.name, entry_id, record):
                    continue
                session.seats[(record.game_id, record.seat)] = record
                await session.outbox.put(pb.ConnectResponse(assignment=_assignment(record)))
                session.spawn(self._play_seat(session, record))
            records = await self._store.assignments(session.name, last, block_ms=1000)
            live = True

    async def _play_seat(self, session: _Session, record: AssignmentRecord) -> None:
        """Send a Turn each time the seat must act (none once the seat is dropped for its timeouts: the
        server plays it), and GameEnded at the end (see :meth:`_ended`).

        A seat the bot can no longer act for (the admin revoked its token, or its game is gone) ends this
        seat's play only, without a GameEnded: the session and the bot's other seats go on (the seat's
        clock, if it has one, plays it; a Move for it is rejected with the reason)."""
        try:
            await self._follow_seat(session, record)
        except ServiceError as error:
            if not (error.reason.startswith("auth/") or error.reason == "game/not_found"):
                raise
            log.info("bot seat lost", bot=session.name, game_id=record.game_id, seat=record.seat, reason=error.reason)

    async def _follow_seat(self, session: _Session, record: AssignmentRecord) -> None:
        game_id, seat, token = record.game_id, record.seat, record.token
        view = await self._games.get_view(game_id, seat, token)
        events = self._games.watch(game_id, view.version + 1, seat, token)
        sent = -1
        try:
            while view.status != game_pb2.GAME_STATUS_FINISHED:
                if view.legal_commands and view.version != sent and not await self._clocks.is_dropped(game_id, seat):
                    sent = view.version
                    await session.outbox.put(pb.ConnectResponse(turn=await self._turn(game_id, seat, view)))
                async for event in events:
                    if event.version > view.version:
                        break
                view = await self._games.get_view(game_id, seat, token)
        finally:
            with contextlib.suppress(Exception):
                await events.aclose()  # type: ignore[attr-defined]  # an AsyncIterator typed stream is an async generator here
        await session.outbox.put(pb.ConnectResponse(game_ended=await self._ended(game_id, seat)))

    async def _ended(self, game_id: str, seat: int) -> pb.GameEnded:
        """The GameEnded of a seat: the results, unless they are withheld (a table of a duplicate deal whose
        other tables are still to be played: the tournament records them, and GetGame shows them, with the
        deal's)."""
        record = await self._games.record(game_id)
        withheld = record.withheld
        results = [] if withheld else record.seat_results()
        return pb.GameEnded(game_id=game_id, seat=seat, results=results, results_withheld=withheld)

    async def _turn(self, game_id: str, seat: int, view: game_pb2.GameView) -> pb.Turn:
        turn = pb.Turn(game_id=game_id, seat=seat, view=view)
        due = await self._clocks.deadline_ms(game_id, seat)
        if due is not None:
            turn.deadline.CopyFrom(timestamp(due))
        return turn

    async def _read_moves(self, session: _Session, moves: AsyncIterator[pb.Move]) -> None:
        try:
            async for move in moves:
                session.spawn(self._move(session, move))
        finally:
            session.ended.set()

    async def _move(self, session: _Session, move: pb.Move) -> None:
        reply = pb.ConnectResponse()
        try:
            record = session.seats.get((move.game_id, move.seat))
            if record is None:
                raise ServiceError("request/invalid", f"this bot has no seat {move.seat} in game {move.game_id!r}")
            response = await self._games.commands.submit(
                move.game_id,
                move.seat,
                record.token,
                move.command,
                expected_version=move.expected_version or None,
                command_id=move.command_id,
            )
            reply.move_accepted.CopyFrom(
                pb.MoveAccepted(
                    game_id=move.game_id, seat=move.seat, command_id=move.command_id, version=response.version
                )
            )
        except ServiceError as error:
            detail = errors_pb2.ErrorDetail(reason=error.reason, message=error.message)
            reply.move_rejected.CopyFrom(
                pb.MoveRejected(game_id=move.game_id, seat=move.seat, command_id=move.command_id, error=detail)
            )
        await session.outbox.put(reply)


def _notice(notice: BotNotice) -> pb.Notice:
    """The BotService Notice of a notice in the bot's stream."""
    return pb.Notice(tournament_id=notice.tournament_id, reason=notice.reason, message=notice.message)


def _assignment(record: AssignmentRecord) -> pb.Assignment:
    return pb.Assignment(
        game_id=record.game_id,
        game=record.game,
        seat=record.seat,
        seat_token=record.token,
        tournament_id=record.tournament_id,
    )
