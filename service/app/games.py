"""The game use cases: create, claim a seat, view, watch, list and read events; and, through
:attr:`Games.commands` (:class:`~service.app.commands.CommandHandler`), submit a command.

Every transport calls these and only these. Inputs and outputs are the ``parlour.v1`` messages; errors are
:class:`~service.app.errors.ServiceError` with a reason from the one error table.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Literal

import structlog

from engines.contract import AnyGame, fold
from engines.envelope import view_envelope
from engines.errors import GameError
from engines.registry import REGISTRY, Registry, catalog_of
from parlour.v1 import game_pb2, game_service_pb2
from service.app.access import check_seat
from service.app.commands import CommandHandler, Stamps
from service.app.errors import ServiceError, from_game_error, quoted
from service.app.events import client_event
from service.app.fanout import CommandsFirst, Deliveries
from service.app.game_records import GameRecords, check_game_id, no_game
from service.app.house_strategies import house_bot_strategies
from service.app.meta_fields import FINISHED, pending_meta
from service.app.observers import GameChange, GameObserver, Observers
from service.app.records import RELEASED, STATUS, GameRecord, SeatClaim, new_meta
from service.app.sizes import SizeLimits
from service.app.states import StateCache
from service.app.time_control import ClockRange, Deadlines, NoDeadlines, SincePrevious, ThinkTimes, TimeControl
from service.app.timestamps import timestamp
from service.app.tokens import hash_token, new_token
from service.store.port import EventStore, NewEvent

__all__ = ["Abandonment", "Games", "check_house_bots"]

log = structlog.get_logger("parlour.games")

_STATUS_NAMES = {v: k for k, v in STATUS.items()}
#: The shortest seed a client may choose (CreateGameRequest.seed): shorter seeds could be guessed.
MIN_SEED_BYTES = 16

#: Given a new game's id, the (player name, seat token) of each of its seats, in seat order.
Holders = Callable[[str], Sequence[tuple[str, str]]]


class Games:
    """The application: all game use cases over one event store."""

    def __init__(
        self,
        store: EventStore,
        *,
        observers: Sequence[GameObserver] = (),
        snapshot_every: int = 100,
        cache_games: int = 10_000,
        clock_range: ClockRange | None = None,
        think_times: ThinkTimes | None = None,
        now_ms: Callable[[], int] | None = None,
        commands_first: CommandsFirst | None = None,
        sizes: SizeLimits | None = None,
        registry: Registry = REGISTRY,
        deadlines: Deadlines | None = None,
    ) -> None:
        """``deadlines`` tells when a clocked game's pending seats must act (the clock keeper; default:
        none). ``registry`` holds the rules versions this server plays (and which one new games get);
        ``observers`` are told of every game this process creates or changes (see GameObserver);
        ``clock_range`` bounds the time per move of a game's time control, ``sizes`` the pages and player
        names. A command's events are stamped
        with ``now_ms`` (default: the system clock) and the think time ``think_times`` measures (default:
        since the previous event; the server gives its clock keeper). ``commands_first`` is told of every
        command being applied (the live fan-out gives way to them)."""
        self.registry = registry
        self._deadlines: Deadlines = deadlines or NoDeadlines()
        self._rules_replies: dict[str, game_service_pb2.GetGameRulesResponse] = {}
        self._clock_range = clock_range or ClockRange()
        self._sizes = sizes or SizeLimits()
        self._store = store
        self._states = StateCache(store, capacity=cache_games, snapshot_every=snapshot_every)
        self._records = GameRecords(store, registry)
        self._observers = Observers(observers)
        self._deliveries = Deliveries()
        #: The command use cases (submit, play_default, play_for_house).
        self.commands = CommandHandler(
            store,
            self._records,
            self._states,
            Stamps(now_ms or _wall_clock_ms, think_times or SincePrevious()),
            self._observers,
            commands_first or CommandsFirst(),
        )

    def add_observer(self, observer: GameObserver) -> None:
        """Also tell ``observer`` about every game this process creates or changes from now on, after the
        observers given before (an observer that plays through this application, the house bots, is added
        once the application exists)."""
        self._observers.add(observer)

    async def tell_observers(self, game_id: str) -> None:
        """Tell every observer the game's current state again, as after a change through this process.
        For work a process that stopped just after storing a command never did (see the clocks' sweep)."""
        await self._notify_current(await self._records.get(game_id, fresh=True))

    async def _notify_current(self, record: GameRecord) -> None:
        """Tell the observers the game as the store holds it now (no new events in hand)."""
        if not self._observers:
            return
        loaded = await self._states.get(record.game_id, record.game, at_least=record.version)
        await self._observers.tell(GameChange(record.game_id, record, loaded.game, loaded.state, loaded.version))

    # --- catalogue ------------------------------------------------------------------------------------

    def game_types(self) -> list[game_service_pb2.GameType]:
        """Every game this server plays: the spec of the version new games get, and every version it holds."""
        types = []
        for name in self.registry.names():
            current = self.registry.current(name)
            assert current is not None  # every registered name has a version
            spec = current.spec
            options = [
                game_service_pb2.GameOption(
                    name=o.name, description=o.description, default_value=o.default, allowed_values=o.allowed
                )
                for o in spec.options
            ]
            types.append(
                game_service_pb2.GameType(
                    name=spec.name,
                    title=spec.title,
                    rules_version=spec.rules_version,
                    rules_versions=[game.spec.rules_version for game in self.registry.versions(name)],
                    min_seats=spec.min_seats,
                    max_seats=spec.max_seats,
                    options=options,
                    bot_strategies=house_bot_strategies(name),
                )
            )
        return types

    def game_rules(self, name: str, rules_version: str = "") -> game_service_pb2.GetGameRulesResponse:
        """Every component of game ``name``'s rules version (empty: the current one) named and explained,
        and a line per phase (see :func:`engines.registry.catalog_of`)."""
        current = self.registry.current(name)
        if current is None:
            raise _unknown_game(name, self.registry)
        game = self.registry.get(name, rules_version) if rules_version else current
        if game is None:
            held = ", ".join(g.spec.rules_version for g in self.registry.versions(name))
            raise ServiceError(
                "rules/not_found",
                f"this server has no rules version {quoted(rules_version)} of {name}: it holds {held}; leave "
                "rules_version empty for the current one",
            )
        reply = self._rules_replies.get(game.spec.rules_version)
        if reply is None:
            reply = self._rules_replies[game.spec.rules_version] = _rules_reply(name, game)
        return reply

    def engine(self, name: str, rules_version: str = "") -> AnyGame:
        """The engine new games of ``name`` get, or the one of ``rules_version`` when given (empty: the
        current one); game/unknown_type or game/rules_unavailable when this server has none."""
        current = self.registry.current(name)
        if current is None:
            raise _unknown_game(name, self.registry)
        if not rules_version:
            return current
        if rules_version.partition("/")[0] != name:
            raise ServiceError(
                "request/invalid",
                f"rules_version {quoted(rules_version)} is not a rules version of {name}; {name}'s are like "
                f"{current.spec.rules_version!r} (ListGameTypes lists them), or leave it empty for the current one",
            )
        game = self.registry.get(name, rules_version)
        if game is None:
            held = ", ".join(g.spec.rules_version for g in self.registry.versions(name))
            raise ServiceError(
                "game/rules_unavailable",
                f"this server has no rules version {quoted(rules_version)} of {name}: it holds {held}; leave "
                "rules_version empty for the current one",
            )
        return game

    # --- records --------------------------------------------------------------------------------------

    async def record(self, game_id: str) -> GameRecord:
        """The game's current record (metadata); game/not_found if there is no such game."""
        return await self._records.get(game_id, fresh=True)

    async def get_game(self, game_id: str) -> game_service_pb2.GameSummary:
        """The game's public summary."""
        return (await self._records.get(game_id, fresh=True)).summary()

    async def list_games(
        self, game: str, status: int, page_size: int, page_token: str
    ) -> tuple[list[game_service_pb2.GameSummary], str]:
        """Summaries newest first, filtered; and the next page token ("" at the end)."""
        if game and self.registry.current(game) is None:
            raise _unknown_game(game, self.registry)
        if status and status not in _STATUS_NAMES:
            raise ServiceError("request/invalid", f"status {status} is not a GameStatus value")
        if page_token and not (page_token.isascii() and page_token.isdigit() and len(page_token) <= 18):
            raise ServiceError("request/invalid", "page_token must be a token from an earlier ListGames reply")
        size = self._sizes.games_page(page_size)
        page = await self._store.list_games(
            game=game,
            status=_STATUS_NAMES.get(game_pb2.GameStatus.ValueType(status), ""),
            limit=size,
            cursor=page_token,
        )
        summaries = [GameRecord.parse(meta.pop("game_id"), meta, self.registry).summary() for meta in page.games]
        return summaries, page.next_cursor

    # --- create and claim ---------------------------------------------------------------------------

    async def create_game(
        self,
        name: str,
        seats: int,
        options: dict[str, str],
        seed: bytes | None,
        *,
        keep_hidden: bool = False,
        time_control: TimeControl | None = None,
        holders: Holders | None = None,
        house_bots: Sequence[tuple[int, str]] = (),
        held: bool = False,
        rules_version: str = "",
    ) -> game_service_pb2.GameSummary:
        """Create a game under ``rules_version`` (empty: the current version of the game), deal it from
        ``seed`` (random when None) and store its setup events. With
        ``keep_hidden`` its hidden information stays redacted per seat after the end; ``held`` keeps it so
        only until :meth:`release` (a tournament's duplicate deal, until all its tables are over); with
        ``time_control`` it has a clock (started by the clock observer once every seat is claimed).

        ``holders`` (given the new game's id, the player name and seat token of every seat) reserves
        the seats in the same write that creates the game, so no one else can ever claim them (the
        tournament scheduler's games). ``house_bots`` ((seat, strategy) pairs, checked by
        :func:`check_house_bots`) are seats the server plays."""
        game = self.engine(name, rules_version)
        if time_control is not None:
            self.check_clock(time_control)
        try:
            config = game.spec.config(seats, options)
        except GameError as error:
            raise from_game_error(error) from error
        if seed is not None and not MIN_SEED_BYTES <= len(seed) <= 256:
            raise ServiceError(
                "request/invalid",
                f"a seed must be {MIN_SEED_BYTES} to 256 bytes long, not {len(seed)}: a shorter one could be "
                "guessed; leave it unset and the server picks 32 random bytes",
            )
        house = check_house_bots(name, seats, house_bots)
        salt = secrets.token_bytes(16)  # in the seed commitment, so even a guessable seed stays hidden
        events = game.start(config, seed if seed is not None else secrets.token_bytes(32), salt)
        game_id = secrets.token_hex(8)
        meta = new_meta(
            game, config, reveal_after_end=not keep_hidden, time_control=time_control, house_bots=house, held=held
        )
        if holders is not None:
            meta.update(_reserved_seats(holders(game_id), config.seats))
        state = fold(game, events)
        meta.update(pending_meta(game.pending(state)))
        setup = [e.SerializeToString() for e in events]
        stored = await self._store.create(game_id, meta, [NewEvent(data) for data in setup])
        log.info("game created", game_id=game_id, game=name, seats=seats)
        record = self._records.keep(game_id, stored)
        self._states.created(game_id, game, setup, record.created_ms, state)  # the setup in hand is the whole log
        await self._notify_current(record)
        return record.summary()

    def check_clock(self, control: TimeControl) -> None:
        """Raise request/invalid unless ``control``'s time per move is within this server's range."""
        self._clock_range.check(control)

    async def release(self, game_id: str) -> None:
        """Make a ``held`` game follow the default policy from now on (public once over). Idempotent."""
        await self._store.set_meta_if_absent(game_id, RELEASED, "true")
        self._records.forget(game_id)

    async def claim_seat(
        self, game_id: str, seat: int | None, player_name: str, *, token: str | None = None
    ) -> tuple[int, str]:
        """Claim ``seat`` (the lowest free one when None) for ``player_name``; returns (seat, token). The
        token is new unless the caller gives one (the tournament scheduler derives its tokens, and its
        player names are bot names, bounded by the bot name limit instead)."""
        name = player_name.strip()
        sizes = self._sizes
        given = max(sizes.max_player_name_length, sizes.max_bot_name_length) if token is not None else None
        sizes.check_player_name(name, limit=given)
        record = await self._records.get(game_id)  # a cached one will do: the store refuses a finished game's seat
        if seat is None and record.full:  # nothing to try: ask the store whether the game is over, or gone
            record = await self._records.get(game_id, fresh=True)
        if record.finished:
            raise _game_over()
        if seat is not None:
            check_seat(record, seat)
        token = token or new_token()
        claim = json.dumps(SeatClaim(name=name, token_hash=hash_token(token)).__dict__)
        for candidate in range(record.config.seats) if seat is None else [seat]:
            if seat is None and candidate in record.claims:
                continue  # taken when the record was read (the store's reply to the last try, if any)
            outcome = await self._store.claim_meta(game_id, f"seat:{candidate}", claim, unless=("status", FINISHED))
            if outcome.meta is None:
                self._records.forget(game_id)
                raise no_game(game_id)
            record = self._records.keep(game_id, outcome.meta)
            if outcome.claimed:
                log.info("seat claimed", game_id=game_id, seat=candidate)
                if record.full:
                    await self._notify_current(record)  # observers may start something once every seat is taken
                return candidate, token
            if record.finished:
                raise _game_over()
        if seat is not None:
            raise ServiceError("seat/taken", f"seat {seat} is already taken; claim another seat or leave it unset")
        raise ServiceError("seat/none_free", "every seat of this game is taken; watch it as a spectator instead")

    async def abandon(self, game_id: str, now_ms: int, *, max_moves: int = 100_000) -> Abandonment:
        """End a running game nobody plays (retention, after ``--abandon-after-hours`` without a move).

        A game whose every seat is held (claimed by a player, reserved for a tournament's bot, or played
        by a house bot) is marked abandoned, then every pending seat's default command is played (with the
        server's authority, as timeouts) until it is over: its players and watchers see it end, and it is
        kept, exported and expired as any finished game. Returns "ended".

        A game with a seat nobody ever claimed never started (its clock starts once every seat is
        claimed): it is deleted at once, with the tokens of the seats that were claimed, instead of being
        played out, since playing out a game no one played multiplies its size several times (an Old Men
        game grows from about 5 KB to 30 KB) and costs tens of milliseconds of CPU, for every game a client
        created and left. Its free seats are closed first, so no claim completes the game while it goes; a
        watcher of it is not told (its stream stays open, with nothing more to come). Returns "deleted".

        Returns "" for a game that is already over or gone. Safe to repeat and to run in several processes
        at once (each move's command id is derived from the version; closing a seat is one write that
        either a closer or a player wins)."""
        try:
            record = await self._records.get(game_id, fresh=True)
            if not record.finished and _unseated(record):
                for seat in _unseated(record):
                    closed = SeatClaim(name="", token_hash=_CLOSED_SEAT + new_token())
                    await self._store.set_meta_if_absent(game_id, f"seat:{seat}", json.dumps(closed.__dict__))
                record = await self._records.get(game_id, fresh=True)
        except ServiceError as error:
            if error.reason != "game/not_found":
                raise
            return ""  # deleted meanwhile (by another process's run)
        if record.finished:
            return ""
        if _unseated(record):  # a seat is closed: the game can never start
            await self.forget(game_id)
            log.info("game deleted unstarted", game_id=game_id)
            return "deleted"
        await self._play_out(record, now_ms, max_moves)
        return "ended"

    async def _play_out(self, record: GameRecord, now_ms: int, max_moves: int) -> None:
        """Mark the game abandoned and play its pending seats' default commands until it is over."""
        game_id = record.game_id
        await self._store.set_meta_if_absent(game_id, "abandoned_ms", str(now_ms))
        for _ in range(max_moves):
            version = await self._store.version(game_id)
            loaded = await self._states.get(game_id, record.game, at_least=version)
            if record.game.is_over(loaded.state):
                break
            seat = min(record.game.pending(loaded.state))
            with contextlib.suppress(ServiceError):  # another process moved first: look again
                await self.commands.play_default(
                    game_id, seat, expected_version=loaded.version, command_id=f"abandoned:{loaded.version}:{seat}"
                )
        self._records.forget(game_id)
        log.info("game abandoned", game_id=game_id)

    async def forget(self, game_id: str) -> None:
        """Delete the game from the store (retention); its seat tokens go with it."""
        await self._store.delete(check_game_id(game_id))
        self._records.forget(game_id)
        self._states.forget(game_id)

    async def revoke_seat(self, game_id: str, seat: int) -> None:
        """Make the seat's token worthless (the admin's call): the seat stays taken by its player, and no
        token acts or sees for it any more. Raises game/not_found, seat/not_found or seat/not_claimed."""
        record = await self._records.get(game_id, fresh=True)
        check_seat(record, seat)
        claim = record.claims.get(seat)
        if claim is None:
            raise ServiceError("seat/not_claimed", f"seat {seat} is not claimed; there is no token to revoke")
        revoked = json.dumps(SeatClaim(name=claim.name, token_hash="revoked:" + new_token()).__dict__)
        await self._store.replace_meta(game_id, f"seat:{seat}", revoked)
        self._records.forget(game_id)
        log.info("seat token revoked", game_id=game_id, seat=seat)

    # --- view -----------------------------------------------------------------------------------------

    async def get_view(
        self, game_id: str, seat: int | None, token: str | None, at_version: int | None = None
    ) -> game_pb2.GameView:
        """The seat's (or a spectator's) view at the latest version, with the seat's legal commands; or as it
        was just after event ``at_version`` (then without legal commands). Views exist at command boundaries
        only: a version inside the events of one command (or of the setup) gives the view after all of them,
        and ``version`` of the view says which. Everything is shown only when the game is over and its policy
        reveals it (the after-the-end rule). A withheld game (see :meth:`GameRecords.readable`) is shown to its own
        seats only, as they saw it while it ran, without its results."""
        record = await self._records.readable(game_id, seat, token)
        version = await self._store.version(game_id)
        if at_version is not None and at_version < 1:
            raise ServiceError("request/invalid", f"at_version must be 1 or more, not {at_version}")
        if at_version is not None and at_version > version:
            raise ServiceError(
                "version/not_found", f"the game has no version {at_version} yet: it is at version {version}"
            )
        if at_version is not None:
            at_version = await self._boundary(game_id, at_version, version)
        latest = await self._states.get(game_id, record.game, at_least=version)
        loaded = latest if at_version is None or at_version == latest.version else None
        if loaded is None:
            loaded = await self._states.at(game_id, record.game, at_version or version)
        over = record.game.is_over(latest.state)
        if over and not record.reveal_after_end:  # the policy of a held game changes once: read it afresh
            record = await self._records.get(game_id, fresh=True)
        reveal = over and record.reveal_after_end  # the after-the-end rule
        view = view_envelope(record.game, loaded.state, seat, reveal=reveal, game_id=game_id, version=loaded.version)
        if loaded.version < version:
            del view.legal_commands[:]
        elif record.time_control is not None and not over:
            await self._add_deadlines(view)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            del view.results[:]
            record = await self._records.get(game_id, fresh=True)
            if not record.withheld:  # the outcome of a deal's table is its tournament's, with the deal's
                view.results.extend(record.seat_results())
        return view

    async def _add_deadlines(self, view: game_pb2.GameView) -> None:
        """Put into ``view`` (the latest of a running clocked game) when each pending seat's time runs out."""
        due = await self._deadlines.deadlines(view.game_id)
        for seat in view.pending_seats:
            if seat in due:
                deadline_ms, bank_ms = due[seat]
                view.deadlines.add(seat=seat, deadline=timestamp(deadline_ms), bank_ms=bank_ms)

    async def _boundary(self, game_id: str, at_version: int, version: int) -> int:
        """The command boundary at or after ``at_version``: the last event of the command (or setup) that
        event ``at_version`` belongs to."""
        start = at_version + 1
        while start <= version:
            page = await self._store.read(game_id, start, 64)
            if not page:
                break
            for event in page:
                if event.command:
                    return event.version - 1
            start = page[-1].version + 1
        return version

    # --- events ---------------------------------------------------------------------------------------

    async def list_events(
        self, game_id: str, from_version: int, page_size: int, seat: int | None, token: str | None
    ) -> game_service_pb2.ListEventsResponse:
        """A page of events from ``from_version``, redacted for the reader (a withheld game's for its own
        seats only: see :meth:`GameRecords.readable`)."""
        if from_version < 0:
            raise ServiceError("request/invalid", "from_version must be 0 or more (0 and 1 both mean the start)")
        await self._records.readable(game_id, seat, token)
        size = self._sizes.events_page(page_size)
        record = await self._records.get(game_id, fresh=True)
        stored = await self._store.read(game_id, max(from_version, 1), size)
        events = [client_event(record.game, e, seat, finished=record.public) for e in stored]
        last = max(record.version, stored[-1].version if stored else 0)
        next_version = stored[-1].version + 1 if stored else last + 1  # past the end: where the log ends
        return game_service_pb2.ListEventsResponse(events=events, next_version=next_version, last_version=last)

    async def watch(
        self, game_id: str, from_version: int, seat: int | None, token: str | None
    ) -> AsyncIterator[game_pb2.Event]:
        """Events from ``from_version`` on, live, redacted for the watcher; ends after a finished game's last
        event. The events are shared with other watchers of the same audience: do not change them."""
        async for reply in self.watch_replies(game_id, from_version, seat, token):
            yield reply.event

    async def watch_replies(
        self, game_id: str, from_version: int, seat: int | None, token: str | None, *, by_command: bool = False
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """:meth:`watch` as WatchGame replies (with ``by_command``, one reply per command carrying all its
        events), each built once per audience (see service.app.fanout) and shared by every watcher of that
        audience: do not change them. A withheld game is watched by its own seats only (see
        :meth:`GameRecords.readable`)."""
        if from_version < 0:
            raise ServiceError("request/invalid", "from_version must be 0 or more (0 and 1 both mean the start)")
        await self._records.readable(game_id, seat, token)
        async for reply in self.watch_checked(game_id, from_version, seat, by_command=by_command):
            yield reply

    async def watch_checked(
        self, game_id: str, from_version: int, seat: int | None, *, by_command: bool = False
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """As :meth:`watch_replies`, for a reader whose right to watch as ``seat`` the caller has checked (a
        stream ticket, which only a seat's token gets; the server's own tournament scheduler)."""
        if from_version < 0:
            raise ServiceError("request/invalid", "from_version must be 0 or more (0 and 1 both mean the start)")
        record = await self._records.get(game_id, fresh=True)
        if record.finished and max(from_version, 1) > record.version:
            return
        if by_command:
            async for command in self._store.tail_commands(game_id, from_version):
                yield self._deliveries.command_reply(record, command, seat)
            return
        async for stored in self._store.tail(game_id, from_version):
            yield self._deliveries.reply(record, stored, seat)

    async def check_token(self, game_id: str, seat: int, token: str | None) -> None:
        """Raise game/not_found or auth/* unless ``token`` is the token of ``seat`` of the game (whether or
        not the game is over)."""
        await self._records.authorized(game_id, seat, token, acting=True)


def _rules_reply(name: str, game: AnyGame) -> game_service_pb2.GetGameRulesResponse:
    """GetGameRules' reply for ``game``'s rules version."""
    catalog = catalog_of(game)
    return game_service_pb2.GetGameRulesResponse(
        game=name,
        rules_version=game.spec.rules_version,
        entries=[
            game_service_pb2.RulesEntry(kind=e.kind, id=e.id, name=e.name, effect=e.effect, description=e.description)
            for e in catalog.entries
        ],
        phases=[game_service_pb2.PhaseHint(phase=phase, hint=hint) for phase, hint in catalog.phases],
    )


def check_house_bots(game: str, seats: int, house_bots: Sequence[tuple[int, str]]) -> dict[int, str]:
    """The house bots by seat; request/invalid unless each has its own seat of the game and a strategy
    that plays ``game``."""
    known = house_bot_strategies(game)
    chosen: dict[int, str] = {}
    for seat, strategy in house_bots:
        if seat in chosen:
            raise ServiceError("request/invalid", f"house bot seat {seat} is given twice; give each seat once")
        chosen[seat] = strategy
        if not 0 <= seat < seats:
            raise ServiceError("request/invalid", f"house bot seat {seat} does not exist: seats are 0 to {seats - 1}")
        if strategy not in known:
            raise ServiceError(
                "request/invalid", f"no house bot strategy {strategy[:40]!r} for {game}; use one of: {', '.join(known)}"
            )
    return chosen


#: What abandon() may answer: the game was "ended" (played out), "deleted" (never fully seated), or ""
#: (already over or gone).
Abandonment = Literal["", "ended", "deleted"]

#: The token hash of a seat closed by abandon(): no token matches it, and the seat counts as never claimed.
_CLOSED_SEAT = "closed:"


def _unseated(record: GameRecord) -> list[int]:
    """The seats of the game no player holds: never claimed, or closed by abandon()."""
    return [
        seat
        for seat in range(record.config.seats)
        if seat not in record.claims or record.claims[seat].token_hash.startswith(_CLOSED_SEAT)
    ]


def _reserved_seats(holders: Sequence[tuple[str, str]], seats: int) -> dict[str, str]:
    """The metadata fields that give every seat to its holder (name, seat token)."""
    if len(holders) != seats:
        raise ValueError(f"{len(holders)} seat holders for a game of {seats} seats")
    return {
        f"seat:{seat}": json.dumps(SeatClaim(name=name, token_hash=hash_token(token)).__dict__)
        for seat, (name, token) in enumerate(holders)
    }


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


def _game_over() -> ServiceError:
    return ServiceError("game/over", "the game is over; its seats can no longer be claimed")


def _unknown_game(name: str, registry: Registry) -> ServiceError:
    known = ", ".join(registry.names())
    return ServiceError("game/unknown_type", f"this server plays no game {quoted(name)}; it plays: {known}")
