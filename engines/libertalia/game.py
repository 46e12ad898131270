"""Libertalia: Winds of Galecrest as a :class:`engines.contract.Game`.

One object per rules version (``versions.py`` lists them): its ``rules`` (:class:`~.data.LibertaliaRules`)
name the version in its spec and in the first event of each game it starts, and go into every state it
folds; from there they decide, fold and view the game.

Package map: ``data`` + ``characters.json`` (the rules of a version: the 40 characters, loot counts and
every [Z]/[P] number, and the rule flags),
``state`` (frozen dataclasses), ``setup``/``chance`` (all randomness, written into events), ``evolve``,
``ops`` (primitive moves), ``abilities/`` (day, night, loot and order dispatch tables, the choice specs),
``flow`` (the day, dusk, night and anchor passes), ``rules`` (decide and legal commands), ``scoring``
and ``view`` (view and redaction).

Choices the rules file leaves open, resolved here: the owner is asked to order due abilities unless
all of them are pure gains (which commute); a choice with one option is applied without asking; the
Stowaway is discarded and the Smuggler moved to its ship before the token they gain fires (no token effect
depends on them); night and anchor abilities are resolved seat by seat, in seat order (queued all at once
or seat by seat: the flag ``turns``).
"""

from __future__ import annotations

from engines.contract import GameConfig, GameSpec, OptionSpec, Result, VersionedRules, pick_default
from engines.libertalia import rules, view
from engines.libertalia.data import LibertaliaRules
from engines.libertalia.evolve import evolve
from engines.libertalia.scoring import result
from engines.libertalia.setup import BOARDS, start_events
from engines.libertalia.state import Phase, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["Libertalia"]

_OPTIONS = (
    OptionSpec(
        name="board",
        description="loot board side: calm, stormy, or uncharted (each loot type's side drawn at random)",
        default="calm",
        allowed=BOARDS,
    ),
    OptionSpec(
        name="scores",
        description="public: score dials are open information; hidden: each dial is seen by its owner only "
        "until the game ends (D4)",
        default="public",
        allowed=("public", "hidden"),
    ),
    OptionSpec(
        name="reputation",
        description="random: all six reputation tokens on random spaces; middle: the players' tokens on the "
        "middle spaces, dummies at both ends (D3)",
        default="random",
        allowed=("random", "middle"),
    ),
)


class Libertalia:
    """The engine of Libertalia: Winds of Galecrest (rules: shared/rules/libertalia-galecrest.md) under one
    rules version, ``rules``."""

    #: This version's rules (a :class:`~engines.libertalia.data.LibertaliaRules`, also
    #: :attr:`libertalia_rules`), typed as the contract's member: ``Game.rules`` is a settable protocol
    #: attribute, so mypy wants exactly its type here.
    rules: VersionedRules
    state_type = State
    command_type = pb.LibertaliaCommand
    event_type = pb.LibertaliaEvent
    view_type = pb.LibertaliaView

    def __init__(self, rules: LibertaliaRules) -> None:
        """The game played by ``rules`` (its spec names their version)."""
        self.rules = rules
        self._rules = rules
        self.spec = GameSpec(
            name="libertalia",
            title="Libertalia: Winds of Galecrest",
            rules_version=rules.version.name,
            min_seats=2,
            max_seats=6,
            options=_OPTIONS,
        )

    def __repr__(self) -> str:
        return f"Libertalia({self._rules.version.name!r})"

    @property
    def libertalia_rules(self) -> LibertaliaRules:
        """``rules`` with their own type: the data and flags of this version."""
        return self._rules

    def start(self, config: GameConfig, seed: bytes, salt: bytes = b"") -> list[pb.LibertaliaEvent]:
        """Game started (sides, reputation order, seed commitment), the bag filled, voyage 1 set up."""
        return start_events(self._rules, config, seed, salt)

    def evolve(self, state: State | None, event: pb.LibertaliaEvent) -> State:
        """The state after ``event``; the first event's state carries this object's rules."""
        return evolve(state, event, self._rules)

    def check_command(self, state: State, command: pb.LibertaliaCommand) -> None:
        """Malformed whatever the phase: no kind, a rank off 1..40, no such seat, no loot type or reward
        (``rules.check_command``)."""
        rules.check_command(state, command)

    def decide(self, state: State, seat: int, command: pb.LibertaliaCommand) -> list[pb.LibertaliaEvent]:
        """The events of a pending seat's command, up to the next decision anyone must make."""
        return rules.decide(state, seat, command)

    def decide_and_evolve(
        self, state: State, seat: int, command: pb.LibertaliaCommand
    ) -> tuple[list[pb.LibertaliaEvent], State]:
        """:meth:`decide` and the state its events lead to, which deciding has already computed (the
        abilities read the state as it stands after each of their steps), so it is not folded twice."""
        run = rules.decide_run(state, seat, command)
        return run.events, run.state

    def pending(self, state: State) -> frozenset[int]:
        """Every seat still to select today, or the one seat a choice is asked of; none once over."""
        return rules.pending(state)

    def legal_commands(self, state: State, seat: int) -> list[pb.LibertaliaCommand]:
        """Every command ``seat`` may submit now."""
        return rules.legal_commands(state, seat)

    def view(self, state: State, seat: int | None, *, reveal: bool = False) -> pb.LibertaliaView:
        """The board as ``seat`` (or a spectator) sees it; everything with ``reveal``."""
        return view.view(state, seat, reveal=reveal)

    def redact(self, event: pb.LibertaliaEvent, seat: int | None, *, finished: bool = False) -> pb.LibertaliaEvent:
        """``event`` as ``seat`` may see it."""
        return view.redact(event, seat, finished=finished, voyages=len(self._rules.voyage_days))

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        return state.phase is Phase.OVER

    def result(self, state: State) -> Result | None:
        """Standings by score, ties to the reputation furthest right; ``None`` before the end."""
        return result(state) if state.phase is Phase.OVER else None

    def default_command(self, state: State, seat: int, nonce: str = "") -> pb.LibertaliaCommand:
        """Any legal command, uniformly (:func:`~engines.contract.pick_default` from the secret seed): the
        card, choice or option played for a timed-out seat says nothing about the others it held."""
        return pick_default(rules.legal_commands(state, seat), state.seed, seat, nonce)
