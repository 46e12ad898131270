"""Commands Old Men of the Forest cannot understand, for the contract suite's malformed-before-illegal test.

Each is refused by ``check_command`` in every phase, for every seat and after the end (see
``tests/contract/test_malformed.py``).
"""

from __future__ import annotations

from engines.oldmen.state import State
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["ACTING_PHASES", "UNDERSTOOD_KINDS", "commands"]

#: Kinds whose every value is understood: seat numbers and orangutan ids name a card to take or an
#: orangutan to save, and one that does not exist is an illegal choice, as the referees agreed.
UNDERSTOOD_KINDS: frozenset[str] = frozenset({"take_card", "save_orangutan"})

#: The phases a seat can be asked to act in, and the end: random play reaches every one.
ACTING_PHASES: frozenset[str] = frozenset({"PLAY", "TAKE", "SAVE", "OVER"})


def commands(state: State) -> list[pb.OldmenCommand]:
    """Malformed commands: no kind, and cards outside the deck (unknown colour, values off 1..10, none)."""
    c = pb.OldmenCommand
    return [
        c(),
        c(play_card=pb.OldmenPlayCard(card=pb.OldmenCard(colour=0, value=5))),  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        c(play_card=pb.OldmenPlayCard(card=pb.OldmenCard(colour=pb.OLDMEN_COLOUR_RED, value=11))),
        c(play_card=pb.OldmenPlayCard(card=pb.OldmenCard(colour=pb.OLDMEN_COLOUR_BLUE, value=0))),
        c(play_card=pb.OldmenPlayCard()),
    ]
