"""Deciding commands of Libertalia: which commands are legal, and what each one causes.

``legal_commands`` and ``decide`` share one check per command kind (``_why_not_*``); the options of a
choice come from its spec (:mod:`engines.libertalia.abilities.prompting`), so the legal list a bot sees
is exactly the set the engine accepts. Names and numbers in sentences and checks come from the rules of the
state's version (``state.rules``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.errors import IllegalCommandError, MalformedCommandError
from engines.libertalia.abilities.prompting import Option, resolve, spec
from engines.libertalia.data import TYPES, loot_pb
from engines.libertalia.flow import advance, selecting_seats
from engines.libertalia.ops import Run
from engines.libertalia.state import Phase, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["check_command", "command_of", "decide", "decide_run", "legal_commands", "pending"]

_KINDS = "select_character, choose_character, choose_loot, swap_loot, choose_ability or choose_reward"


def pending(state: State) -> frozenset[int]:
    """The seats that must act: every seat still to select, or the one seat a choice is asked of."""
    if state.phase is Phase.SELECT:
        return selecting_seats(state)
    if state.prompt is not None:
        return frozenset({state.prompt.seat})
    return frozenset()


def legal_commands(state: State, seat: int) -> list[pb.LibertaliaCommand]:
    """Every command ``seat`` may submit now (the first is the default move)."""
    if state.phase is Phase.SELECT:
        if seat not in selecting_seats(state):
            return []
        return [_select(rank) for rank in state.players[seat].hand]
    if state.prompt is None or state.prompt.seat != seat:
        return []
    return [command_of(option) for option in spec(state.prompt.kind).options(state, state.prompt)]


def _select(rank: int) -> pb.LibertaliaCommand:
    return pb.LibertaliaCommand(select_character=pb.LibertaliaSelectCharacter(rank=rank))


def command_of(option: Option) -> pb.LibertaliaCommand:
    """The command that picks ``option``."""
    kind, args = option
    if kind == "choose_character":
        return pb.LibertaliaCommand(choose_character=pb.LibertaliaChooseCharacter(seat=args[0], rank=args[1]))
    if kind == "choose_loot":
        chosen = pb.LibertaliaChooseLoot(loot=loot_pb(args[1]), count=args[2])
        if args[0] >= 0:
            chosen.seat = args[0]
        return pb.LibertaliaCommand(choose_loot=chosen)
    if kind == "swap_loot":
        swap = pb.LibertaliaSwapLoot(today=loot_pb(args[0]), next_day=loot_pb(args[1]))
        return pb.LibertaliaCommand(swap_loot=swap)
    if kind == "choose_ability":
        loot = loot_pb(args[1]) if args[1] >= 0 else 0
        return pb.LibertaliaCommand(choose_ability=pb.LibertaliaChooseAbility(rank=args[0], loot=loot))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    return pb.LibertaliaCommand(choose_reward=pb.LibertaliaChooseReward(reward=args[0]))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def check_command(state: State, command: pb.LibertaliaCommand) -> None:
    """Raise MalformedCommandError unless ``command`` can be understood in this game, whatever the phase:
    a kind is set, ranks are 1..40, seats are the game's, loot types and rewards are named."""
    _parse(state, command)


def _parse(state: State, command: pb.LibertaliaCommand) -> tuple[str, tuple[int, ...]]:
    kind = command.WhichOneof("kind")
    if kind is None:
        raise MalformedCommandError(f"the command names no action: set {_KINDS}")
    return kind, _PARSE[kind](state, getattr(command, kind))


def decide(state: State, seat: int, command: pb.LibertaliaCommand) -> list[pb.LibertaliaEvent]:
    """The events of ``command`` by a pending ``seat``; raises Malformed/IllegalCommandError otherwise
    (malformed first: :func:`check_command`)."""
    return decide_run(state, seat, command).events


def decide_run(state: State, seat: int, command: pb.LibertaliaCommand) -> Run:
    """:func:`decide`, keeping the run: its events and the state they lead to."""
    kind, args = _parse(state, command)
    reason = _WHY_NOT[kind](state, seat, args)
    if reason:
        raise IllegalCommandError(reason)
    run = Run(state)
    if kind == "select_character":
        selected = pb.LibertaliaCharacterSelected(seat=seat, rank=args[0])
        run.emit(pb.LibertaliaEvent(character_selected=selected))
    else:
        assert state.prompt is not None
        resolve(run, state.prompt, (kind, args))
        if not run.events:  # the answer changed nothing: record it, which ends the choice
            made = pb.LibertaliaChoiceMade(seat=seat, kind=state.prompt.kind)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
            run.emit(pb.LibertaliaEvent(choice_made=made))
    advance(run)
    return run


# --- parsing (malformed) ------------------------------------------------------------------------------


def _rank(rank: int, zero: bool = False) -> int:
    if not (1 <= rank <= 40 or (zero and rank == 0)):
        raise MalformedCommandError(f"rank {rank} names no character: ranks go from 1 to 40")
    return rank


def _seat(state: State, seat: int) -> int:
    if not 0 <= seat < state.seats:
        raise MalformedCommandError(f"there is no seat {seat} in this {state.seats}-player game")
    return seat


def _loot(value: int, optional: bool = False) -> int:
    if optional and value == 0:
        return -1
    if not 1 <= value <= TYPES:
        raise MalformedCommandError("a loot type must be set: map, barrel, amulet, chest, hook, saber or relic")
    return value - 1


def _parse_select(state: State, c: pb.LibertaliaSelectCharacter) -> tuple[int, ...]:
    return (_rank(c.rank),)


def _parse_character(state: State, c: pb.LibertaliaChooseCharacter) -> tuple[int, ...]:
    return (_seat(state, c.seat), _rank(c.rank))


def _parse_loot(state: State, c: pb.LibertaliaChooseLoot) -> tuple[int, ...]:
    seat = _seat(state, c.seat) if c.HasField("seat") else -1
    most = state.rules.number(30, "max_tokens")
    if not 0 <= c.count <= most:
        raise MalformedCommandError(
            f"a count of {c.count} tokens is not allowed: use 0, or 1 to {most} for the Merchant"
        )
    return (seat, _loot(c.loot), c.count)


def _parse_swap(state: State, c: pb.LibertaliaSwapLoot) -> tuple[int, ...]:
    return (_loot(c.today), _loot(c.next_day))


def _parse_ability(state: State, c: pb.LibertaliaChooseAbility) -> tuple[int, ...]:
    rank, loot = _rank(c.rank, zero=True), _loot(c.loot, optional=True)
    if (rank == 0) == (loot < 0):
        raise MalformedCommandError("name either a character's rank or a loot type, not both or neither")
    return (rank, loot)


def _parse_reward(state: State, c: pb.LibertaliaChooseReward) -> tuple[int, ...]:
    if c.reward not in (pb.LIBERTALIA_REWARD_DOUBLOONS, pb.LIBERTALIA_REWARD_REPUTATION):
        raise MalformedCommandError("a reward must be set: doubloons or reputation")
    return (c.reward,)


_PARSE: dict[str, Callable[[State, Any], tuple[int, ...]]] = {
    "select_character": _parse_select,
    "choose_character": _parse_character,
    "choose_loot": _parse_loot,
    "swap_loot": _parse_swap,
    "choose_ability": _parse_ability,
    "choose_reward": _parse_reward,
}


# --- legality (illegal), shared with legal_commands -----------------------------------------------------


def _why_not_select(state: State, seat: int, args: tuple[int, ...]) -> str | None:
    rank = args[0]
    if state.phase is not Phase.SELECT:
        return f"you cannot select a character now: {_expected(state)}"
    if state.players[seat].selected:
        return "you have already selected today's character"
    if rank not in state.players[seat].hand:
        return f"you have no {state.rules.name_of(rank)} (rank {rank}) in your hand"
    return None


def _expected(state: State) -> str:
    if state.phase is Phase.SELECT:
        return "select a character from your hand for today"
    assert state.prompt is not None
    return spec(state.prompt.kind).text(state.rules)


def _why_not_choice(kind: str, describe: Callable[[State, tuple[int, ...]], str]) -> Callable[..., str | None]:
    def why_not(state: State, seat: int, args: tuple[int, ...]) -> str | None:
        """Why ``seat`` may not answer with ``args`` now (None: it may)."""
        if state.phase is Phase.SELECT or state.prompt is None:
            return f"no choice is asked of you now: {_expected(state)}"
        options = spec(state.prompt.kind).options(state, state.prompt)
        if (kind, args) in options:
            return None
        if all(k != kind for k, _ in options):
            return f"this command does not answer the choice asked of you: {_expected(state)}"
        return f"{describe(state, args)} is not an option: {_expected(state)}"

    return why_not


def _loot_name(loot: int) -> str:
    return pb.LibertaliaLoot.Name(loot_pb(loot)).removeprefix("LIBERTALIA_LOOT_").lower()


def _describe_loot(state: State, args: tuple[int, ...]) -> str:
    where = "today's pool" if args[0] < 0 else f"seat {args[0]}'s supply"
    count = f"{args[2]} x " if args[2] else "a "
    return f"{count}{_loot_name(args[1])} from {where}"


_WHY_NOT: dict[str, Callable[[State, int, tuple[int, ...]], str | None]] = {
    "select_character": _why_not_select,
    "choose_character": _why_not_choice("choose_character", lambda s, a: f"seat {a[0]}'s {s.rules.name_of(a[1])}"),
    "choose_loot": _why_not_choice("choose_loot", _describe_loot),
    "swap_loot": _why_not_choice("swap_loot", lambda s, a: f"swapping a {_loot_name(a[0])} for a {_loot_name(a[1])}"),
    "choose_ability": _why_not_choice(
        "choose_ability",
        lambda s, a: f"the {s.rules.name_of(a[0])}'s ability" if a[0] else f"the {_loot_name(a[1])}'s ability",
    ),
    "choose_reward": _why_not_choice(
        "choose_reward", lambda s, a: "reputation" if a[0] == pb.LIBERTALIA_REWARD_REPUTATION else "doubloons"
    ),
}
