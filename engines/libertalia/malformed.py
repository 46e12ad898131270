"""Commands Libertalia cannot understand, for the contract suite's malformed-before-illegal test.

Each is refused by ``check_command`` in every phase, for every seat and after the end (see
``tests/contract/test_malformed.py``).
"""

from __future__ import annotations

from engines.libertalia.state import State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["ACTING_PHASES", "UNDERSTOOD_KINDS", "commands"]

#: Kinds whose every value is understood: none.
UNDERSTOOD_KINDS: frozenset[str] = frozenset()

#: The phases a seat can be asked to act in, and the end: random play reaches every one.
ACTING_PHASES: frozenset[str] = frozenset({"SELECT", "DAY", "DUSK", "NIGHT", "ANCHOR", "OVER"})


def commands(state: State) -> list[pb.LibertaliaCommand]:
    """Malformed commands: no kind, ranks off 1..40, seats the table does not have, and loot, counts and
    choices outside their ranges."""
    c, map_ = pb.LibertaliaCommand, pb.LIBERTALIA_LOOT_MAP
    return [
        c(),
        c(select_character=pb.LibertaliaSelectCharacter(rank=0)),
        c(select_character=pb.LibertaliaSelectCharacter(rank=41)),
        c(choose_character=pb.LibertaliaChooseCharacter(seat=-1, rank=5)),
        c(choose_character=pb.LibertaliaChooseCharacter(seat=state.seats, rank=5)),
        c(choose_character=pb.LibertaliaChooseCharacter(seat=0, rank=0)),
        c(choose_loot=pb.LibertaliaChooseLoot()),
        c(choose_loot=pb.LibertaliaChooseLoot(loot=map_, count=4)),
        c(choose_loot=pb.LibertaliaChooseLoot(seat=state.seats, loot=map_)),
        c(swap_loot=pb.LibertaliaSwapLoot(today=map_)),
        c(swap_loot=pb.LibertaliaSwapLoot(next_day=99)),  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        c(choose_ability=pb.LibertaliaChooseAbility()),
        c(choose_ability=pb.LibertaliaChooseAbility(rank=5, loot=map_)),
        c(choose_ability=pb.LibertaliaChooseAbility(rank=41)),
        c(choose_reward=pb.LibertaliaChooseReward()),
    ]
