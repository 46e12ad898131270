"""Choices: how an ability asks its owner to choose, and the table of every kind of choice.

A choice is a :class:`~engines.libertalia.state.Prompt`. Its spec lists the options (each one command:
a command kind and its arguments) and resolves the chosen one. :func:`ask` applies a lone option at once,
does nothing when there is none, and otherwise stops the game with a ChoiceRequested event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engines.libertalia.data import LibertaliaRules, loot_pb
from engines.libertalia.ops import Run
from engines.libertalia.state import Prompt, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["Option", "PromptSpec", "ask", "resolve", "spec"]

# An option: the command kind ("choose_character", ...) and its arguments as a tuple of ints.
Option = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class PromptSpec:
    """One kind of choice: what the player is told (a sentence, or the sentence of a version's rules when
    it holds their numbers: :meth:`text`), its options and how the chosen one resolves."""

    describe: str | Callable[[LibertaliaRules], str]
    options: Callable[[State, Prompt], list[Option]]
    resolve: Callable[[Run, Prompt, Option], None]

    def text(self, rules: LibertaliaRules) -> str:
        """What the player is told, with the numbers of ``rules``."""
        return self.describe if isinstance(self.describe, str) else self.describe(rules)


_TABLE: dict[int, PromptSpec] = {}


def _specs() -> dict[int, PromptSpec]:
    if not _TABLE:
        from engines.libertalia.abilities.table import PROMPTS  # the table imports the abilities, which ask

        _TABLE.update(PROMPTS)
    return _TABLE


def ask(run: Run, prompt: Prompt) -> None:
    """Ask ``prompt.seat`` to choose: a lone option is applied at once; with none nothing happens."""
    kind = _specs()[prompt.kind]
    options = kind.options(run.state, prompt)
    if len(options) == 1:
        kind.resolve(run, prompt, options[0])
    elif options:
        request = pb.LibertaliaChoiceRequested(
            seat=prompt.seat,
            kind=prompt.kind,  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
            source_rank=prompt.source,
            ability_rank=prompt.ability,
            loot=loot_pb(prompt.loot) if prompt.loot >= 0 else 0,  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        )
        run.emit(pb.LibertaliaEvent(choice_requested=request))


def resolve(run: Run, prompt: Prompt, option: Option) -> None:
    """Apply the option chosen for the pending ``prompt``."""
    _specs()[prompt.kind].resolve(run, prompt, option)


def spec(kind: int) -> PromptSpec:
    """The spec of a kind of choice."""
    return _specs()[kind]
