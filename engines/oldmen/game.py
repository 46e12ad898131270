"""Old Men of the Forest as a :class:`engines.contract.Game`: one object per rules version
(``engines/oldmen/versions.py`` lists them)."""

from __future__ import annotations

from engines.contract import GameConfig, GameSpec, OptionSpec, Result, VersionedRules, pick_default
from engines.oldmen import rules as deciding
from engines.oldmen import view
from engines.oldmen.data import OldmenRules
from engines.oldmen.evolve import evolve, started
from engines.oldmen.scoring import match_result
from engines.oldmen.setup import start_events
from engines.oldmen.state import Phase, State
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["OldMen", "game_spec"]

_MAX_SEATS = 4
_OPTIONS = (
    OptionSpec(
        name="match_deals",
        description="1: a single game; 2: the recommended match of two games, scores added",
        default="1",
        allowed=("1", "2"),
    ),
)


def game_spec(rules_version: str) -> GameSpec:
    """The spec of Old Men of the Forest under ``rules_version`` (seats and options are those of every version)."""
    return GameSpec(
        name="oldmen",
        title="Old Men of the Forest",
        rules_version=rules_version,
        min_seats=3,
        max_seats=_MAX_SEATS,
        options=_OPTIONS,
    )


_NOBODY: frozenset[int] = frozenset()
_SEAT_SETS: tuple[frozenset[int], ...] = tuple(frozenset({seat}) for seat in range(_MAX_SEATS))


def _just(seat: int) -> frozenset[int]:
    """``frozenset({seat})``, the same immutable set each time for a seat of the table."""
    return _SEAT_SETS[seat] if 0 <= seat < len(_SEAT_SETS) else frozenset({seat})


class OldMen:
    """The engine of Old Men of the Forest (rules: shared/rules/old-men-of-the-forest.md) under one rules
    version, ``rules`` (:func:`engines.oldmen.data.load_rules`). The states it folds carry those rules, and
    every method reads the data from the state it is given."""

    spec: GameSpec
    #: This version's rules (an :class:`~engines.oldmen.data.OldmenRules`), typed as the contract's member:
    #: ``Game.rules`` is a settable protocol attribute, so mypy wants exactly its type here.
    rules: VersionedRules
    state_type = State
    command_type = pb.OldmenCommand
    event_type = pb.OldmenEvent
    view_type = pb.OldmenView

    def __init__(self, rules: OldmenRules) -> None:
        self.rules = rules
        self._rules = rules
        self.spec = game_spec(rules.version.name)

    def __repr__(self) -> str:
        return f"OldMen({self.spec.rules_version})"

    def start(self, config: GameConfig, seed: bytes, salt: bytes = b"") -> list[pb.OldmenEvent]:
        """Game started (under this object's rules), then the first deal: start player, hands, orangutan
        deck and row."""
        return start_events(config, seed, self._rules, salt)

    def evolve(self, state: State | None, event: pb.OldmenEvent) -> State:
        """The state after ``event``; the first (``state`` is ``None``), ``game_started``, gives the game this
        object's rules."""
        if state is None:
            assert event.WhichOneof("kind") == "game_started", "a game's log starts with game_started"
            return started(event.game_started, self._rules)
        return evolve(state, event)

    def check_command(self, state: State, command: pb.OldmenCommand) -> None:
        """Malformed whatever the phase: no kind, or no such card (``engines.oldmen.rules.check_command``)."""
        deciding.check_command(state, command)

    def decide(self, state: State, seat: int, command: pb.OldmenCommand) -> list[pb.OldmenEvent]:
        """The events of a pending seat's command (see ``engines.oldmen.rules.decide``)."""
        return deciding.decide(state, seat, command)

    def decide_and_evolve(
        self, state: State, seat: int, command: pb.OldmenCommand
    ) -> tuple[list[pb.OldmenEvent], State]:
        """:meth:`decide` and the state its events lead to (what folding them gives), computed while
        deciding, so :func:`engines.contract.advance` need not fold the events a second time."""
        return deciding.decide_and_evolve(state, seat, command)

    def pending(self, state: State) -> frozenset[int]:
        """The one seat whose card, take or save decision is due; none once the match is over."""
        if state.phase is Phase.PLAY:
            return _just(state.to_play)
        if state.phase is Phase.TAKE or state.phase is Phase.SAVE:
            return _just(state.acting_winner)
        return _NOBODY

    def legal_commands(self, state: State, seat: int) -> list[pb.OldmenCommand]:
        """Every command ``seat`` may submit now."""
        return deciding.legal_commands(state, seat)

    def view(self, state: State, seat: int | None, *, reveal: bool = False) -> pb.OldmenView:
        """The board as ``seat`` (or a spectator) sees it; everything with ``reveal``."""
        return view.view(state, seat, reveal=reveal)

    def redact(self, event: pb.OldmenEvent, seat: int | None, *, finished: bool = False) -> pb.OldmenEvent:
        """``event`` as ``seat`` may see it."""
        return view.redact(event, seat, finished=finished)

    def is_over(self, state: State) -> bool:
        """Whether the match has ended."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Match standings: total score, then the orangutan comparison; equal seats share the win."""
        if state.phase is not Phase.OVER:
            return None
        return match_result(state)

    def default_command(self, state: State, seat: int, nonce: str = "") -> pb.OldmenCommand:
        """Any legal command, uniformly (:func:`~engines.contract.pick_default` from the secret seed): the
        card, choice or option played for a timed-out seat says nothing about the others it held."""
        return pick_default(deciding.legal_commands(state, seat), state.seed, seat, nonce)
