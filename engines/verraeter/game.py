"""Verräter as a :class:`engines.contract.Game`."""

from __future__ import annotations

from engines.contract import GameConfig, GameSpec, OptionSpec, Result, pick_default
from engines.verraeter import rules, scoring, view
from engines.verraeter.evolve import evolve
from engines.verraeter.flow import DATA
from engines.verraeter.setup import RULES_VERSION, start_events
from engines.verraeter.state import Phase, State
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["SPEC", "VERRAETER", "Verraeter"]

SPEC = GameSpec(
    name="verraeter",
    title="Verräter",
    rules_version=RULES_VERSION,
    min_seats=3,
    max_seats=5,
    options=(
        OptionSpec(
            name="start_hand",
            description="random: 3 random supply cards each (NGO edition); classic: one 3, one 4 and one 5 each (D2)",
            default="random",
            allowed=("random", "classic"),
        ),
        OptionSpec(
            name="land_layout",
            description="random: both land sets shuffled into the ring; alternating: Eagle and Rose lands alternate "
            "(D5)",
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
    ),
)


class Verraeter:
    """The engine of Verräter for 3-5 players (rules: shared/rules/verraeter.md)."""

    spec = SPEC
    state_type = State
    command_type = pb.VerraeterCommand
    event_type = pb.VerraeterEvent
    view_type = pb.VerraeterView

    def start(self, config: GameConfig, seed: bytes, salt: bytes = b"") -> list[pb.VerraeterEvent]:
        """Game started, seats and houses, the ring of lands, the starting hands and the draw deck."""
        return start_events(config, seed, DATA, salt)

    def evolve(self, state: State | None, event: pb.VerraeterEvent) -> State:
        """The state after ``event``."""
        return evolve(state, event)

    def check_command(self, state: State, command: pb.VerraeterCommand) -> None:
        """Malformed whatever the phase: no kind, a position off the ring, no side, card or house, a value
        below 1 (see ``rules.check_command``)."""
        rules.check_command(state, command)

    def decide(self, state: State, seat: int, command: pb.VerraeterCommand) -> list[pb.VerraeterEvent]:
        """The events of a pending seat's command and every automatic step after it (see ``rules.decide``)."""
        return rules.decide(state, seat, command)

    def pending(self, state: State) -> frozenset[int]:
        """The seat whose decision is due, or every seat above the hand limit; none once the game is over."""
        return rules.pending(state)

    def legal_commands(self, state: State, seat: int) -> list[pb.VerraeterCommand]:
        """Every command ``seat`` may submit now, the default first."""
        return rules.legal_commands(state, seat)

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
        return pick_default(rules.legal_commands(state, seat), state.seed, seat, nonce)


VERRAETER = Verraeter()
