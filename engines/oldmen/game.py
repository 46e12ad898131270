"""Old Men of the Forest as a :class:`engines.contract.Game`."""

from __future__ import annotations

from engines.contract import GameConfig, GameSpec, OptionSpec, Result, pick_default
from engines.oldmen import rules, view
from engines.oldmen.data import load_orangutans
from engines.oldmen.evolve import evolve
from engines.oldmen.scoring import match_result
from engines.oldmen.setup import RULES_VERSION, start_events
from engines.oldmen.state import Phase, State
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["OLDMEN", "OldMen"]

SPEC = GameSpec(
    name="oldmen",
    title="Old Men of the Forest",
    rules_version=RULES_VERSION,
    min_seats=3,
    max_seats=4,
    options=(
        OptionSpec(
            name="match_deals",
            description="1: a single game; 2: the recommended match of two games, scores added",
            default="1",
            allowed=("1", "2"),
        ),
    ),
)

_NOBODY: frozenset[int] = frozenset()
_SEAT_SETS: tuple[frozenset[int], ...] = tuple(frozenset({seat}) for seat in range(SPEC.max_seats))


def _just(seat: int) -> frozenset[int]:
    """``frozenset({seat})``, the same immutable set each time for a seat of the table."""
    return _SEAT_SETS[seat] if 0 <= seat < len(_SEAT_SETS) else frozenset({seat})


class OldMen:
    """The engine of Old Men of the Forest (rules: shared/rules/old-men-of-the-forest.md)."""

    spec = SPEC
    state_type = State
    command_type = pb.OldmenCommand
    event_type = pb.OldmenEvent
    view_type = pb.OldmenView

    def __init__(self) -> None:
        self._orangutans = load_orangutans()

    def start(self, config: GameConfig, seed: bytes, salt: bytes = b"") -> list[pb.OldmenEvent]:
        """Game started, then the first deal: start player, hands, orangutan deck and row."""
        return start_events(config, seed, self._orangutans, salt)

    def evolve(self, state: State | None, event: pb.OldmenEvent) -> State:
        """The state after ``event``."""
        return evolve(state, event)

    def check_command(self, state: State, command: pb.OldmenCommand) -> None:
        """Malformed whatever the phase: no kind, or no such card (``rules.check_command``)."""
        rules.check_command(state, command)

    def decide(self, state: State, seat: int, command: pb.OldmenCommand) -> list[pb.OldmenEvent]:
        """The events of a pending seat's command (see ``rules.decide``)."""
        return rules.decide(state, seat, command)

    def decide_and_evolve(
        self, state: State, seat: int, command: pb.OldmenCommand
    ) -> tuple[list[pb.OldmenEvent], State]:
        """:meth:`decide` and the state its events lead to (what folding them gives), computed while
        deciding, so :func:`engines.contract.advance` need not fold the events a second time."""
        return rules.decide_and_evolve(state, seat, command)

    def pending(self, state: State) -> frozenset[int]:
        """The one seat whose card, take or save decision is due; none once the match is over."""
        if state.phase is Phase.PLAY:
            return _just(state.to_play)
        if state.phase is Phase.TAKE or state.phase is Phase.SAVE:
            return _just(state.acting_winner)
        return _NOBODY

    def legal_commands(self, state: State, seat: int) -> list[pb.OldmenCommand]:
        """Every command ``seat`` may submit now."""
        return rules.legal_commands(state, seat)

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
        return pick_default(rules.legal_commands(state, seat), state.seed, seat, nonce)


OLDMEN = OldMen()
