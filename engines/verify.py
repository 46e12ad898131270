"""Re-running a finished game from its revealed seed to check every event (pure: no I/O).

Given the configuration, the seed and the log (each event with the command that caused it), the game is
started again and every command re-decided through :func:`engines.contract.step`; each produced event must
equal the logged one. The first difference is reported with its version and what differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import text_format

from engines.contract import AnyGame, GameConfig, commit_seed, fold, step
from engines.errors import GameError

__all__ = ["LoggedEvent", "Verdict", "seed_commitment", "verify_log"]

_SHOWN = 160  # characters of an event shown in a message


@dataclass(frozen=True)
class LoggedEvent:
    """An event as logged: its version, the seat and command that caused it (None for setup events)."""

    version: int
    event: Any
    seat: int | None = None
    command: Any = None
    command_id: str = ""


@dataclass(frozen=True)
class Verdict:
    """The outcome: ``ok``, or the first bad version (0 when no single event is to blame) and why."""

    ok: bool
    first_bad_version: int
    message: str
    state: Any = None


def seed_commitment(first_event: Any) -> tuple[str, bytes]:
    """The rules version and seed commitment of a game's first event. By the engine contract every game's
    log starts with a ``game_started`` event carrying ``rules_version`` and ``seed_commitment``."""
    started = first_event.game_started
    return started.rules_version, bytes(started.seed_commitment)


def _show(event: Any) -> str:
    text = text_format.MessageToString(event, as_one_line=True)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _bad(version: int, message: str) -> Verdict:
    return Verdict(False, version, message)


def verify_log(
    game: AnyGame, config: GameConfig, seed: bytes, log: Sequence[LoggedEvent], *, salt: bytes = b""
) -> Verdict:
    """Check ``log`` against a fresh run of ``game`` from ``seed`` and the commitment's ``salt`` (see the
    module docstring)."""
    problem = _check_start(game, seed, salt, log)
    if problem:
        return problem
    expected = game.start(config, seed, salt)
    problem = _compare(expected, log, 0, "the setup")
    if problem:
        return problem
    state = fold(game, expected)
    index = len(expected)
    while index < len(log):
        produced, problem = _redecide(game, state, log[index])
        problem = problem or _compare(produced, log, index, f"command {log[index].command_id or '?'}")
        if problem:
            return problem
        state = fold(game, produced, state)
        index += len(produced)
    if not game.is_over(state):
        return _bad(log[-1].version, f"the game is not over after its last event {log[-1].version}")
    return Verdict(True, 0, f"all {len(log)} events re-decided from the revealed seed are identical", state)


def _check_start(game: AnyGame, seed: bytes, salt: bytes, log: Sequence[LoggedEvent]) -> Verdict | None:
    """The log begins with game_started, made by these rules, whose seed commitment matches the revealed
    seed and salt. A log of other rules (another rules version) is reported as such, not as a difference."""
    if not log:
        return _bad(0, "the log is empty")
    if log[0].event.WhichOneof("kind") != "game_started":
        return _bad(log[0].version, "event 1 is not the game_started event every game begins with")
    rules_version, commitment = seed_commitment(log[0].event)
    if rules_version != game.spec.rules_version:
        message = (
            f"made by other rules: the game was played under {rules_version}, these rules are "
            f"{game.spec.rules_version}, so it cannot be re-run with them"
        )
        return _bad(log[0].version, message)
    if commit_seed(seed, rules_version, salt) != commitment:
        return _bad(log[0].version, "the revealed seed does not match the commitment published in event 1")
    return None


def _redecide(game: AnyGame, state: Any, entry: LoggedEvent) -> tuple[list[Any], Verdict | None]:
    """The events the logged command gives on ``state``, or why it cannot be re-decided."""
    if entry.command is None or entry.seat is None:
        return [], _bad(entry.version, f"event {entry.version} should start a command, but no command caused it")
    try:
        return step(game, state, entry.seat, entry.command), None
    except GameError as error:
        message = f"the command before event {entry.version} (seat {entry.seat}) is refused: {error}"
        return [], _bad(entry.version, message)


def _compare(produced: Sequence[Any], log: Sequence[LoggedEvent], start: int, cause: str) -> Verdict | None:
    for offset, event in enumerate(produced):
        position = start + offset
        if position >= len(log):
            return _bad(
                log[-1].version + 1, f"{cause} produces an event {log[-1].version + 1} the log lacks: {_show(event)}"
            )
        entry = log[position]
        if offset > 0 and entry.command is not None:
            return _bad(
                entry.version, f"event {entry.version} starts a new command, but {cause} produces {_show(event)}"
            )
        if entry.event != event:
            return _bad(
                entry.version,
                f"event {entry.version} differs: the rules give {_show(event)}, the log has {_show(entry.event)}",
            )
    return None
