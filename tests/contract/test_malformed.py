"""Malformed before illegal, for every registered game: a command that cannot be understood is refused as
malformed in every phase, for every seat (pending or not) and after the end, never as illegal.

Each game writes its malformed commands per command kind in ``engines/<game>/malformed.py`` (every kind
with a field has some; found through ``registry.malformed_probes``); each game is played to its end with
seeded random legal moves and every command is tried at every state.
"""

from __future__ import annotations

import pytest

from engines.contract import AnyGame, fold, step
from engines.errors import GameError, MalformedCommandError
from engines.prng import Prng
from engines.registry import GAMES, malformed_probes


def _kinds_with_fields(game: AnyGame) -> set[str]:
    oneof = game.command_type.DESCRIPTOR.oneofs_by_name["kind"]
    kinds = {f.name for f in oneof.fields if f.message_type.fields}
    return kinds - malformed_probes(game).understood_kinds


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
def test_every_kind_of_command_has_malformed_examples(game: AnyGame) -> None:
    """Each command kind that has a field is probed (so a new kind cannot be forgotten here)."""
    state = fold(game, game.start(game.spec.config(game.spec.min_seats), b"kinds"))
    probed = {c.WhichOneof("kind") for c in malformed_probes(game).commands(state)}
    assert _kinds_with_fields(game) <= probed
    assert None in probed


def _phases(game: AnyGame, seats: int, seed: bytes) -> tuple[set[str], int]:
    """Play one game with random legal moves; at every state every seat's malformed probes must be
    malformed. Returns the phases seen and the number of probes."""
    prng = Prng(seed, "malformed")
    options = {o.name: o.allowed[-1] for o in game.spec.options}
    state = fold(game, game.start(game.spec.config(seats, options), seed))
    seen: set[str] = set()
    probes = 0
    while True:
        seen.add(state.phase.name)
        for command in malformed_probes(game).commands(state):
            for seat in range(seats):
                with pytest.raises(GameError) as caught:
                    step(game, state, seat, command)
                assert type(caught.value) is MalformedCommandError, (state.phase, seat, command, caught.value)
                probes += 1
        if game.is_over(state):
            return seen, probes
        seat = prng.choice(sorted(game.pending(state)))
        legal = game.legal_commands(state, seat)
        command = legal[0] if prng.below(2) else prng.choice(legal)  # the default often: hands grow
        state = fold(game, step(game, state, seat, command), state)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
def test_malformed_commands_are_malformed_in_every_phase_for_every_seat(game: AnyGame) -> None:
    """Whatever the phase, whoever sends it, and after the end: malformed, never illegal or not-your-turn."""
    seen: set[str] = set()
    for n in range(4):
        seats = (game.spec.min_seats, game.spec.max_seats)[n % 2]
        phases, probes = _phases(game, seats, f"malformed-{n}".encode())
        seen |= phases
        assert probes > 100
    acting = malformed_probes(game).acting_phases
    assert acting and acting <= seen, sorted(acting - seen)
