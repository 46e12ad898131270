"""Verräter as a :class:`engines.contract.Game`: one object per rules version (``engines/verraeter/versions.py``
lists them)."""

from __future__ import annotations

from engines.contract import GameConfig, GameSpec, OptionSpec, Result, VersionedRules, pick_default
from engines.verraeter import rules as deciding
from engines.verraeter import scoring, view
from engines.verraeter.data import VerraeterRules
from engines.verraeter.evolve import evolve, started
from engines.verraeter.setup import start_events
from engines.verraeter.state import Phase, State
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["Verraeter", "game_spec"]

_OPTIONS = (
    OptionSpec(
        name="start_hand",
        description="random: 3 random supply cards each (NGO edition); classic: one 3, one 4 and one 5 each (D2)",
        default="random",
        allowed=("random", "classic"),
    ),
    OptionSpec(
        name="land_layout",
        description="random: both land sets shuffled into the ring; alternating: Eagle and Rose lands alternate (D5)",
        default="random",
        allowed=("random", "alternating"),
    ),
    OptionSpec(
        name="refill_cap",
        description="true: a seat draws at most 3 supply cards per refill (NGO edition, D12); false: no cap",
        default="true",
        allowed=("true", "false"),
    ),
    OptionSpec(
        name="mercenary",
        description="PROVISIONAL placeholder rule, not the published one (rules 5.2, D24): adds a Mercenary "
        "action card whose holder declares which house his supply cards fight for",
        default="false",
        allowed=("false", "true"),
    ),
)


def game_spec(rules_version: str) -> GameSpec:
    """The spec of Verräter under ``rules_version`` (seats and options are those of every version)."""
    return GameSpec(
        name="verraeter", title="Verräter", rules_version=rules_version, min_seats=3, max_seats=5, options=_OPTIONS
    )


class Verraeter:
    """The engine of Verräter for 3-5 players (rules: shared/rules/verraeter.md) under one rules version,
    ``rules`` (:func:`engines.verraeter.data.load_rules`). The states it folds carry those rules, and every
    method reads the data from the state it is given."""

    spec: GameSpec
    #: This version's rules (a :class:`~engines.verraeter.data.VerraeterRules`), typed as the contract's
    #: member: ``Game.rules`` is a settable protocol attribute, so mypy wants exactly its type here.
    rules: VersionedRules
    state_type = State
    command_type = pb.VerraeterCommand
    event_type = pb.VerraeterEvent
    view_type = pb.VerraeterView

    def __init__(self, rules: VerraeterRules) -> None:
        self.rules = rules
        self._rules = rules
        self.spec = game_spec(rules.version.name)

    def __repr__(self) -> str:
        return f"Verraeter({self.spec.rules_version})"

    def start(self, config: GameConfig, seed: bytes, salt: bytes = b"") -> list[pb.VerraeterEvent]:
        """Game started (under this object's rules), seats and houses, the ring of lands, the starting hands
        and the draw deck."""
        return start_events(config, seed, self._rules, salt)

    def evolve(self, state: State | None, event: pb.VerraeterEvent) -> State:
        """The state after ``event``; the first (``state`` is ``None``), ``game_started``, gives the game this
        object's rules."""
        if state is None:
            assert event.WhichOneof("kind") == "game_started", "a game's log starts with game_started"
            return started(event.game_started, self._rules)
        return evolve(state, event)

    def check_command(self, state: State, command: pb.VerraeterCommand) -> None:
        """Malformed whatever the phase: no kind, a position off the ring, no side, card or house, a value
        below 1 (see ``engines.verraeter.rules.check_command``)."""
        deciding.check_command(state, command)

    def decide(self, state: State, seat: int, command: pb.VerraeterCommand) -> list[pb.VerraeterEvent]:
        """The events of a pending seat's command and every automatic step after it (see
        ``engines.verraeter.rules.decide``)."""
        return deciding.decide(state, seat, command)

    def pending(self, state: State) -> frozenset[int]:
        """The seat whose decision is due, or every seat above the hand limit; none once the game is over."""
        return deciding.pending(state)

    def legal_commands(self, state: State, seat: int) -> list[pb.VerraeterCommand]:
        """Every command ``seat`` may submit now, the default first."""
        return deciding.legal_commands(state, seat)

    def view(self, state: State, seat: int | None, *, reveal: bool = False) -> pb.VerraeterView:
        """The board as ``seat`` (or a spectator) sees it; everything with ``reveal``."""
        return view.view(state, seat, reveal=reveal)

    def redact(self, event: pb.VerraeterEvent, seat: int | None, *, finished: bool = False) -> pb.VerraeterEvent:
        """``event`` as ``seat`` may see it."""
        return view.redact(event, seat, finished=finished)

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Standings by VP (trading-post bonus included); equal VP share the victory (D23)."""
        if state.phase is not Phase.OVER:
            return None
        return scoring.result(state)

    def default_command(self, state: State, seat: int, nonce: str = "") -> pb.VerraeterCommand:
        """Any legal command, uniformly (:func:`~engines.contract.pick_default` from the secret seed): the
        card, choice or option played for a timed-out seat says nothing about the others it held."""
        return pick_default(deciding.legal_commands(state, seat), state.seed, seat, nonce)
