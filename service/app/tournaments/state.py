"""A tournament's state: the fold of its events. Pure: the same events always give the same state,
standings and ratings (OpenSkill's Plackett-Luce model, updated after each game in log order, and the
batch Plackett-Luce fit of every recorded game, :func:`parlour.ratings.batch_ratings`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from parlour.ratings import BatchRating, OnlineRatings, Placing, RatedGame, batch_ratings, online_update
from parlour.v1 import tournament_service_pb2 as pb
from service.app.tournaments.log import tournament_event
from service.store.port import StoredEvent, event_digest

__all__ = ["BotRecord", "Table", "TournamentState", "fold_tournament"]

#: A bot's rating before its first game.
_START = OnlineRatings().rating("")


@dataclass
class BotRecord:
    """One bot's results so far."""

    name: str
    games: int = 0
    score: int = 0
    rank_points: int = 0
    wins: int = 0
    mu: float = _START.mu
    sigma: float = _START.sigma
    #: Who registered the bot (BotRegistered.owner; empty: the admin, or a caller without an API key).
    owner: str = ""
    #: Its games in a row, up to the last recorded, in which the server played for it (its clock ran out).
    timeout_streak: int = 0
    #: A ladder seats it no more (BotPaused), until it registers again.
    paused: bool = False

    @property
    def rating(self) -> float:
        """The conservative rating, mu - 3 sigma."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Table:
    """A scheduled game: its round, index in the round, id and the bot of each seat (and on a ladder with
    duplicate deals, its deal, named by the index of the deal's first table, and its rotation)."""

    round: int
    index: int
    game_id: str
    seats: tuple[str, ...]
    deal: int = 0
    rotation: int = 0


@dataclass
class TournamentState:
    """Everything the events say about a tournament."""

    tournament_id: str
    settings: pb.TournamentSettings
    created_ms: int
    version: int = 0
    status: int = pb.TOURNAMENT_STATUS_REGISTERING
    bots: dict[str, BotRecord] = field(default_factory=dict)
    round: int = 0
    #: The bots in standings order when the current round started (Swiss pairs from it).
    round_order: tuple[str, ...] = ()
    tables: dict[str, Table] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    #: The recorded games' placings, in log order (what the batch ratings are fitted to).
    rated: list[RatedGame] = field(default_factory=list)
    #: The batch ratings of ``rated`` and how many games they were fitted to (refitted when more are).
    _batch: tuple[int, dict[str, BatchRating]] = (0, {})
    #: The digest of the last event's payload (:func:`~service.store.port.event_digest`), so that an
    #: append made on this state is refused if the log's event at ``version`` is no longer that one.
    last_digest: str = ""

    def owned_by(self, owner: str) -> int:
        """How many of the bots were registered by ``owner`` (see BotRegistered.owner)."""
        return sum(bot.owner == owner for bot in self.bots.values())

    def to_pause(self) -> list[BotRecord]:
        """A ladder's bots whose clock ran out in ``pause_after_timeouts`` (0: 3) of their games in a row
        and that are not paused yet, by name."""
        limit = self.settings.pause_after_timeouts or 3
        return sorted(
            (b for b in self.bots.values() if not b.paused and b.timeout_streak >= limit), key=lambda b: b.name
        )

    def deal_of(self, table: Table) -> list[Table]:
        """A ladder's duplicate deal: the tables scheduled so far for ``table``'s deal, rotation order."""
        return sorted(
            (t for t in self.tables.values() if t.round == 0 and t.deal == table.deal), key=lambda t: t.rotation
        )

    def tables_of(self, round_number: int) -> dict[int, Table]:
        """The scheduled tables of a round by index."""
        return {t.index: t for t in self.tables.values() if t.round == round_number}

    @property
    def is_ladder(self) -> bool:
        """Whether the tournament is a standing ladder (no rounds; ranked by rating)."""
        return self.settings.format == pb.TOURNAMENT_FORMAT_LADDER

    def ordered(self) -> list[BotRecord]:
        """Bots best first: rank points, then rating, then score, then name (a ladder: rating, then name)."""
        if self.is_ladder:
            return sorted(self.bots.values(), key=lambda b: (-b.rating, b.name))
        return sorted(self.bots.values(), key=lambda b: (-b.rank_points, -b.rating, -b.score, b.name))

    def batch(self) -> dict[str, BatchRating]:
        """The batch ratings of the recorded games (fitted once per new game recorded)."""
        if self._batch[0] != len(self.rated):
            self._batch = (len(self.rated), batch_ratings(self.rated))
        return self._batch[1]

    def standings(self, *, with_batch: bool = True) -> list[pb.Standing]:
        """The standings, best first (equal records share a rank); without ``with_batch``, the batch
        strength fields stay 0 (no fit is made)."""
        rows: list[pb.Standing] = []
        previous: tuple[int, float, int] | None = None
        batch = self.batch() if with_batch else {}
        for index, bot in enumerate(self.ordered()):
            key = (0 if self.is_ladder else bot.rank_points, round(bot.rating, 9), 0 if self.is_ladder else bot.score)
            rank = rows[-1].rank if previous == key else index + 1
            previous = key
            fitted = batch.get(bot.name)
            rows.append(
                pb.Standing(
                    rank=rank,
                    bot_name=bot.name,
                    games=bot.games,
                    score=bot.score,
                    rank_points=bot.rank_points,
                    wins=bot.wins,
                    rating_mu=bot.mu,
                    rating_sigma=bot.sigma,
                    rating=bot.rating,
                    strength=fitted.strength if fitted else 0.0,
                    strength_low=fitted.low if fitted else 0.0,
                    strength_high=fitted.high if fitted else 0.0,
                    paused=bot.paused,
                )
            )
        return rows

    def summary(self) -> pb.Tournament:
        """The public summary."""
        summary = pb.Tournament(
            tournament_id=self.tournament_id,
            settings=self.settings,
            status=self.status,  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
            bots=list(self.bots),
            round=self.round,
            games_scheduled=len(self.tables),
            games_finished=len(self.finished),
        )
        summary.created_at.FromMilliseconds(self.created_ms)
        return summary

    def copy(self) -> TournamentState:
        """An independent copy (applying events to it leaves this state as it is)."""
        bots = {name: replace(bot) for name, bot in self.bots.items()}
        return replace(self, bots=bots, tables=dict(self.tables), finished=set(self.finished), rated=list(self.rated))

    def apply(self, event: pb.TournamentEvent) -> None:
        """Apply one event (never fails on an event once stored)."""
        self.version = event.version
        kind = event.WhichOneof("kind")
        if kind == "bot_registered":
            registered = event.bot_registered
            bot = self.bots.setdefault(registered.bot_name, BotRecord(registered.bot_name, owner=registered.owner))
            bot.paused, bot.timeout_streak = False, 0  # registering again resumes a paused bot
        elif kind == "bot_paused":
            if (paused := self.bots.get(event.bot_paused.bot_name)) is not None:
                paused.paused = True
        elif kind == "started":
            self.status = pb.TOURNAMENT_STATUS_RUNNING
        elif kind == "round_started":
            self.round = event.round_started.round
            self.round_order = tuple(b.name for b in self.ordered())
        elif kind == "table_scheduled":
            t = event.table_scheduled
            self.tables[t.game_id] = Table(t.round, t.table, t.game_id, tuple(t.seats), t.deal, t.rotation)
        elif kind == "table_finished":
            self._finish(event.table_finished)
        elif kind == "finished":
            self.status = pb.TOURNAMENT_STATUS_FINISHED

    def _finish(self, finished: pb.TableFinished) -> None:
        if finished.game_id in self.finished or finished.game_id not in self.tables:
            return
        self.finished.add(finished.game_id)
        size = len(finished.results)
        records = [self.bots[r.player_name] for r in finished.results if r.player_name in self.bots]
        if len(records) != size:
            return
        timeouts = dict(enumerate(finished.timeouts))
        for result, bot in zip(finished.results, records, strict=True):
            bot.timeout_streak = bot.timeout_streak + 1 if timeouts.get(result.seat, 0) else 0
            bot.games += 1
            bot.score += result.score
            bot.rank_points += size - result.rank
            bot.wins += result.rank == 1
        rated = online_update([(b.mu, b.sigma) for b in records], [r.rank for r in finished.results])
        for bot, (mu, sigma) in zip(records, rated, strict=True):
            bot.mu, bot.sigma = mu, sigma
        placings = tuple(Placing(r.player_name, r.rank) for r in finished.results)
        self.rated.append(RatedGame(finished.game_id, placings))


def fold_tournament(
    tournament_id: str, events: Sequence[StoredEvent], start: TournamentState | None = None
) -> TournamentState | None:
    """The state after ``events`` (as the store reads them), applied to a copy of ``start`` when given
    (``events`` then follow its version); None if there are none."""
    state = start.copy() if start is not None else None
    for stored in events:
        event = tournament_event(stored)
        if state is None:
            state = TournamentState(tournament_id, event.created.settings, stored.recorded_at_ms)
        state.apply(event)
        state.last_digest = event_digest(stored.data)
    return state
