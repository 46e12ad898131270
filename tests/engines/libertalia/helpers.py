"""Building Libertalia states for scenario tests, and running one part of a day.

The states are made by the current rules version (``G``, libertalia/2) unless a test passes another
game object (``scenario(game=LIBERTALIA_1)``); a state carries its rules, so ``G``'s ``step`` and
``legal_commands`` decide it by them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engines.contract import fold, step
from engines.libertalia import LIBERTALIA, Libertalia
from engines.libertalia.flow import advance
from engines.libertalia.ops import Run
from engines.libertalia.state import Card, Phase, Player, State
from parlour.v1 import libertalia_pb2 as pb

G = LIBERTALIA
MAP, BARREL, AMULET, CHEST, HOOK, SABER, RELIC = range(7)


def supply(**counts: int) -> tuple[int, ...]:
    """A supply from type names: supply(map=2, relic=1)."""
    names = ["map", "barrel", "amulet", "chest", "hook", "saber", "relic"]
    return tuple(counts.get(name, 0) for name in names)


def scenario(
    seats: int = 3,
    board: str = "calm",
    *,
    players: dict[int, dict[str, Any]] | None = None,
    reputation: tuple[int, ...] | None = None,
    island: tuple[tuple[int, int], ...] = (),
    pool: tuple[int, ...] = (),
    later: tuple[int, ...] = (),
    phase: Phase = Phase.DAY,
    game: Libertalia = G,
    **fields: Any,
) -> State:
    """A state of ``game`` (a rules version) on day 1 of 2 of voyage 1: every seat has rank 40 in hand (so
    the game stops at the next selection) unless ``players`` says otherwise; ``island`` lists (seat, rank)
    left to right."""
    state = fold(game, game.start(game.spec.config(seats, {"board": board}), b"scenario"))
    assert state is not None
    given = players or {}
    people = tuple(Player(**{"hand": (40,), **given.get(s, {})}) for s in range(seats))
    track = reputation or (*range(seats), *[-1] * (6 - seats))
    defaults: dict[str, Any] = {"boxes": (pool, later), "day": 1, "days": 2, "voyage": 1}
    island_cards = tuple(Card(s, r) for s, r in island)
    return replace(state, players=people, reputation=track, island=island_cards, phase=phase, **{**defaults, **fields})


def run(state: State, stop_at: Phase | None = Phase.DUSK) -> tuple[State, list[pb.LibertaliaEvent]]:
    """Run the game on from ``state`` (by default only to the end of the day pass)."""
    r = Run(state)
    advance(r, stop_at)
    return r.state, r.events


def answer(
    state: State, seat: int, command: pb.LibertaliaCommand, stop_at: Phase | None = Phase.DUSK
) -> tuple[State, list[pb.LibertaliaEvent]]:
    """Submit ``command`` through the contract's step; the state is folded up to phase ``stop_at``."""
    events = step(G, state, seat, command)
    for index, event in enumerate(events):
        started = event.WhichOneof("kind") == "phase_started"
        if stop_at is not None and started and event.phase_started.phase == stop_at.value:
            return fold(G, events[:index], state), events
    return fold(G, events, state), events


def character(seat: int, rank: int) -> pb.LibertaliaCommand:
    """ChooseCharacter."""
    return pb.LibertaliaCommand(choose_character=pb.LibertaliaChooseCharacter(seat=seat, rank=rank))


def loot(kind: int, seat: int | None = None, count: int = 0) -> pb.LibertaliaCommand:
    """ChooseLoot (kind is a loot index 0..6)."""
    chosen = pb.LibertaliaChooseLoot(loot=kind + 1, count=count)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    if seat is not None:
        chosen.seat = seat
    return pb.LibertaliaCommand(choose_loot=chosen)


def ability(rank: int = 0, kind: int = -1) -> pb.LibertaliaCommand:
    """ChooseAbility."""
    return pb.LibertaliaCommand(choose_ability=pb.LibertaliaChooseAbility(rank=rank, loot=kind + 1))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def reward(value: int) -> pb.LibertaliaCommand:
    """ChooseReward."""
    return pb.LibertaliaCommand(choose_reward=pb.LibertaliaChooseReward(reward=value))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def select(rank: int) -> pb.LibertaliaCommand:
    """SelectCharacter."""
    return pb.LibertaliaCommand(select_character=pb.LibertaliaSelectCharacter(rank=rank))


def kinds(events: list[pb.LibertaliaEvent]) -> list[str]:
    """The kinds of ``events``."""
    return [str(e.WhichOneof("kind")) for e in events]


def legal(state: State, seat: int) -> list[pb.LibertaliaCommand]:
    """The seat's legal commands."""
    return G.legal_commands(state, seat)
