"""The engine contract: what every game provides, and the generic checks done once for all games.

A game is a stateless object implementing :class:`Game`. Its state is a plain frozen dataclass; its
commands, events and views are the Protobuf messages generated from ``proto/parlour/v1/<game>.proto``.
Servers, bots, replays and tests use only this interface.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from google.protobuf.message import Message

from engines.errors import ConfigError, GameOverError, NotYourTurnError
from engines.prng import Prng
from engines.rules import RulesVersion

__all__ = [
    "Game",
    "GameConfig",
    "GameSpec",
    "HiddenVariants",
    "MalformedProbes",
    "OptionSpec",
    "Result",
    "SeatResult",
    "VersionedRules",
    "advance",
    "commit_seed",
    "copy_messages",
    "fold",
    "pick_default",
    "rank_by",
    "step",
]

S = TypeVar("S")
C = TypeVar("C", bound=Message)
E = TypeVar("E", bound=Message)
V = TypeVar("V", bound=Message)
K = TypeVar("K")
M = TypeVar("M", bound=Message)


@dataclass(frozen=True)
class OptionSpec:
    """One option a game can be created with. Values are strings; ``allowed`` lists all of them."""

    name: str
    description: str
    default: str
    allowed: tuple[str, ...]


@dataclass(frozen=True)
class GameConfig:
    """A validated configuration: the seat count and every option (defaults filled in), sorted by name."""

    seats: int
    options: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> str:
        """The value of option ``name``; raises ``KeyError`` if the game has no such option."""
        return dict(self.options)[name]

    def flag(self, name: str) -> bool:
        """A boolean option's value."""
        return self.option(name) == "true"

    def number(self, name: str) -> int:
        """An integer option's value."""
        return int(self.option(name))


@dataclass(frozen=True)
class GameSpec:
    """The static description of a game: name, rules version, seat range and options."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    options: tuple[OptionSpec, ...] = ()

    def config(self, seats: int, options: Mapping[str, str] | None = None) -> GameConfig:
        """Validate a seat count and option values and return the full configuration.

        Raises :class:`ConfigError` with a sentence naming the bad value and the allowed ones.
        """
        if not self.min_seats <= seats <= self.max_seats:
            raise ConfigError(f"{self.title} is played by {self.min_seats} to {self.max_seats} players, not {seats}")
        given = dict(options or {})
        known = {option.name: option for option in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise ConfigError(f"{self.title} has no option {unknown[0]!r}; its options are: {names}")
        values: list[tuple[str, str]] = []
        for name, option in sorted(known.items()):
            value = given.get(name, option.default)
            if value not in option.allowed:
                allowed = ", ".join(repr(a) for a in option.allowed)
                raise ConfigError(f"option {name!r} cannot be {value!r}; allowed values: {allowed}")
            values.append((name, value))
        return GameConfig(seats=seats, options=tuple(values))


@dataclass(frozen=True)
class SeatResult:
    """One seat's final standing. ``rank`` is 1 for the winner(s); tied seats share a rank."""

    seat: int
    score: int
    rank: int


@dataclass(frozen=True)
class Result:
    """Final standings, best first."""

    standings: tuple[SeatResult, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several when the win is shared)."""
        return tuple(s.seat for s in self.standings if s.rank == 1)


class VersionedRules(Protocol):
    """The rules of one version of a game: whatever data and flags the game reads, and ``version``, which
    names them (:class:`~engines.rules.RulesVersion`: the name, the data files they were read from, the
    flags)."""

    @property
    def version(self) -> RulesVersion:
        """The identity of these rules."""
        ...


class Game(Protocol[S, C, E, V]):
    """What every game implements. All methods are pure: same inputs, same outputs, no side effects.

    One game object is one rules version of one game (``engines/<game>/versions.py`` lists them):
    ``rules`` holds that version's data and flags, and ``spec.rules_version`` is ``rules.version.name``.
    The states the object folds carry its rules in their field ``rules`` (declared with
    :data:`engines.snapshot.GIVEN`, set by ``evolve`` from the first event), and everything that decides,
    folds or views a state reads the data from there: two versions live side by side in one process, and
    a game is always played by the rules it began under.

    ``command_type``, ``event_type`` and ``view_type`` are the game's Protobuf message classes; the field
    of the ``parlour.v1.Command``/``Event``/``GameView`` envelopes that carries them is ``spec.name``.
    ``state_type`` is the class of the game's state (a frozen dataclass that :mod:`engines.snapshot` can
    encode: fields of dataclasses, named tuples, tuples, enums, bytes and plain values).
    """

    spec: GameSpec
    state_type: type[S]
    command_type: type[C]
    event_type: type[E]
    view_type: type[V]

    @property
    def rules(self) -> VersionedRules:
        """This version's rules (data, flags and ``version``, which names them)."""
        ...

    def start(self, config: GameConfig, seed: bytes, salt: bytes = b"") -> list[E]:
        """The setup events of a new game. All chance is drawn from a :class:`~engines.prng.Prng` seeded by
        ``seed`` alone and written into the events (``salt`` changes no card). The first event names the
        rules version and carries the seed's commitment (:func:`commit_seed` of ``seed`` and ``salt``); the
        seed and salt are kept in it for the server and revealed in the final event."""
        ...

    def evolve(self, state: S | None, event: E) -> S:
        """Apply one event (``state`` is ``None`` for the first). Never validates and never fails on an
        event this game once produced, so old logs always replay."""
        ...

    def check_command(self, state: S, command: C) -> None:
        """Raise MalformedCommandError (with the sentence for the player) when ``command`` cannot be
        understood in this game: no kind set, or a value outside its type's range or outside the game's
        fixed configuration (a seat it does not have, a position off its board, a card it does not use).
        Depends on nothing that changes while the game runs (not the phase, not whose turn it is), so a
        malformed command is malformed in every phase, before and after the end."""
        ...

    def decide(self, state: S, seat: int, command: C) -> list[E]:
        """The events ``command`` by ``seat`` causes. Raises MalformedCommandError or IllegalCommandError
        (with the sentence for the player) and then produces nothing. Call it through :func:`step`, which
        rejects malformed commands, then "game over" and "not your turn" first; decide may assume the seat
        is pending."""
        ...

    def pending(self, state: S) -> frozenset[int]:
        """The seats that must act now (several for a simultaneous choice; none once the game is over)."""
        ...

    def legal_commands(self, state: S, seat: int) -> list[C]:
        """Every command ``seat`` may submit now: exactly those that :func:`step` accepts. Empty exactly
        when the seat need not act. The first one is a sensible move for a bot (the server's timeout
        default is drawn uniformly instead, see ``default_command``)."""
        ...

    def view(self, state: S, seat: int | None, *, reveal: bool = False) -> V:
        """What ``seat`` (``None``: a spectator) may see, hidden information redacted as while the game
        runs, whatever the state. ``reveal`` (only for a finished game whose policy makes everything public,
        see "Hidden information after the end" in the rules) shows every hidden part the view has room for
        to everyone."""
        ...

    def redact(self, event: E, seat: int | None, *, finished: bool = False) -> E:
        """A copy of ``event`` with what ``seat`` may not see removed, as while the game runs (the seed and
        its salt included, in the first and the final event). ``finished`` (only for a finished game whose
        policy makes everything public) returns the event whole."""
        ...

    def is_over(self, state: S) -> bool:
        """Whether the game has ended."""
        ...

    def result(self, state: S) -> Result | None:
        """Final standings once the game is over; ``None`` before."""
        ...

    def default_command(self, state: S, seat: int, nonce: str = "") -> C:
        """What the server plays for a pending seat whose clock ran out (always a legal command). It must
        tell nothing the seat's hidden cards would not: every game picks uniformly among the seat's legal
        commands with :func:`pick_default` (randomness from the secret seed and ``nonce``, which the server
        sets to the version the default is played at, so each decision draws afresh). The pick is recorded
        as the command of the timed-out events, so replays need not re-draw it."""
        ...


AnyGame = Game[Any, Any, Any, Any]


class HiddenVariants(Protocol):
    """What a game says about its hidden information, in ``engines/<game>/hidden.py`` as ``variants``.

    ``variants(events, seat)`` returns copies of a game's setup ``events`` in each of which only something
    ``seat`` (``None``: a spectator) may not see is different: another seat's hand, the order of a face-down
    deck. Each copy must still be a setup the game could have dealt, and differ from ``events``. The
    contract tests check that ``seat``'s view and its redacted events are the same in every copy, so a game
    that leaks hidden information through its view or ``redact`` fails there. Pure, like the engine.
    """

    def __call__(self, events: list[Any], seat: int | None) -> list[list[Any]]:
        """The variants of ``events`` that ``seat`` cannot tell apart from them."""
        ...


def step(game: Game[S, C, E, V], state: S, seat: int, command: C) -> list[E]:
    """Decide ``command`` for ``seat`` after the checks common to every game, in this order.

    Raises MalformedCommandError when the command cannot be understood (``game.check_command``, in every
    phase: malformed before illegal), GameOverError when the game has ended and NotYourTurnError when
    ``seat`` need not act now; otherwise returns ``game.decide(state, seat, command)``.
    """
    _check_common(game, state, seat, command)
    return game.decide(state, seat, command)


def _check_common(game: Game[S, C, E, V], state: S, seat: int, command: C) -> None:
    game.check_command(state, command)
    if game.is_over(state):
        raise GameOverError("the game is over; it takes no more commands")
    if seat not in game.pending(state):
        raise NotYourTurnError(f"it is not your turn: seat {seat} need not act now")


def advance(game: Game[S, C, E, V], state: S, seat: int, command: C) -> tuple[list[E], S]:
    """:func:`step`, and the state its events lead to: the same as ``fold(game, events, state)``.

    A game whose ``decide`` computes that state anyway may offer
    ``decide_and_evolve(state, seat, command) -> (events, state)`` (optional, not part of :class:`Game`);
    it is used instead of folding the events a second time.
    """
    _check_common(game, state, seat, command)
    faster = getattr(game, "decide_and_evolve", None)
    if faster is not None:
        events, after = faster(state, seat, command)
        return events, after
    events = game.decide(state, seat, command)
    folded = fold(game, events, state)
    assert folded is not None
    return events, folded


def fold(game: Game[S, C, E, V], events: Iterable[E], state: S | None = None) -> S | None:
    """The state after applying ``events`` in order to ``state`` (``None``: from the start)."""
    for event in events:
        state = game.evolve(state, event)
    return state


@dataclass(frozen=True)
class MalformedProbes:
    """What a game says about malformed commands, in ``engines/<game>/malformed.py``: ``commands(state)``
    (commands ``check_command`` refuses whatever the phase: the empty command and, for each command kind
    with a field, values it cannot understand), ``UNDERSTOOD_KINDS`` (kinds with fields whose every value
    is understood, so they have no malformed example) and ``ACTING_PHASES`` (names of the phases a seat
    can be asked to act in, and the end, which seeded random play reaches). The contract suite tries
    every command at every state of random games and checks it is refused as malformed."""

    commands: Callable[[Any], list[Any]]
    understood_kinds: frozenset[str]
    acting_phases: frozenset[str]


def copy_messages(messages: Iterable[M]) -> list[M]:
    """Deep copies of Protobuf ``messages`` (to change a copy of a log without touching the original)."""
    copies = []
    for message in messages:
        copy = type(message)()
        copy.CopyFrom(message)
        copies.append(copy)
    return copies


def commit_seed(seed: bytes, rules_version: str, salt: bytes = b"") -> bytes:
    """The public commitment to a secret seed: SHA-256 of ``b"parlour-seed-v1\\0" + rules_version +
    b"\\0" + salt + seed`` (the server's salt is 16 random bytes, so even a short or guessable seed cannot
    be found from its commitment; games made before salts have none). Published in a game's first event;
    anyone can check it once the final event reveals the seed and the salt."""
    return hashlib.sha256(b"parlour-seed-v1\0" + rules_version.encode() + b"\0" + salt + seed).digest()


def pick_default(commands: Sequence[C], seed: bytes, seat: int, nonce: str) -> C:
    """One of ``commands``, uniformly, drawn from ``Prng(seed, "default", nonce, str(seat))``: a default
    move that says nothing about the seat's other options (the lowest card would say "nothing lower")."""
    return Prng(seed, "default", nonce, str(seat)).choice(commands)


def rank_by(seats: Sequence[int], key: Mapping[int, K], score: Mapping[int, int]) -> Result:
    """Standings from a sort key per seat (higher is better; equal keys share a rank)."""
    order = sorted(seats, key=lambda s: key[s], reverse=True)  # type: ignore[arg-type,return-value]  # sort keys of a game's own type K, which mypy cannot see are comparable
    standings: list[SeatResult] = []
    for index, seat in enumerate(order):
        rank = standings[-1].rank if index and key[seat] == key[order[index - 1]] else index + 1
        standings.append(SeatResult(seat=seat, score=score[seat], rank=rank))
    return Result(standings=tuple(standings))
