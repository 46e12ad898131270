"""The primitive moves every ability is made of. Each emits one event into a :class:`Run` and applies it,
so an ability reads the state as it stands after its earlier steps (and the rules of its version through
``run.state.rules``)."""

from __future__ import annotations

from typing import TypeAlias

from engines.libertalia.data import ANCHOR, DAY, DUSK, NIGHT, loot_pb
from engines.libertalia.evolve import evolve
from engines.libertalia.state import Card, Effect, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = [
    "BAG",
    "BOX",
    "GRAVEYARD",
    "HAND",
    "ISLAND",
    "SHIP",
    "SUPPLY",
    "TIMING_PB",
    "LootPlace",
    "Place",
    "Run",
    "anchor_reward",
    "effect_pb",
    "gain",
    "insert_index",
    "move_card",
    "move_loot",
    "move_reputation",
    "queue_effects",
    "reputation",
]

HAND, ISLAND, SHIP, GRAVEYARD = (
    pb.LIBERTALIA_PLACE_HAND,
    pb.LIBERTALIA_PLACE_ISLAND,
    pb.LIBERTALIA_PLACE_SHIP,
    pb.LIBERTALIA_PLACE_GRAVEYARD,
)
BAG, BOX, SUPPLY = pb.LIBERTALIA_LOOT_PLACE_BAG, pb.LIBERTALIA_LOOT_PLACE_BOX, pb.LIBERTALIA_LOOT_PLACE_SUPPLY
TIMING_PB = {
    DAY: pb.LIBERTALIA_TIMING_DAY,
    DUSK: pb.LIBERTALIA_TIMING_DUSK,
    NIGHT: pb.LIBERTALIA_TIMING_NIGHT,
    ANCHOR: pb.LIBERTALIA_TIMING_ANCHOR,
}


class Run:
    """The events decided so far for one command and the state they lead to."""

    __slots__ = ("events", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[pb.LibertaliaEvent] = []

    def emit(self, event: pb.LibertaliaEvent) -> None:
        """Record ``event`` and apply it."""
        self.events.append(event)
        self.state = evolve(self.state, event)


def gain(run: Run, seat: int, amount: int) -> int:
    """``seat`` gains ``amount`` doubloons (a negative amount is a loss, stopping at 0); the change made."""
    if seat < 0:
        return 0
    before = run.state.players[seat].doubloons
    after = max(0, before + amount)
    if after != before:
        change = pb.LibertaliaDoubloonsChanged(seat=seat, amount=after - before, doubloons=after)
        run.emit(pb.LibertaliaEvent(doubloons_changed=change))
    return after - before


def reputation(run: Run, seat: int, steps: int) -> None:
    """Reputation +steps (or -steps): other tokens slide; each step past an end gains or costs 1 (rule 1.2)."""
    if seat < 0 or steps == 0:
        return
    space = run.state.space(seat)
    target = min(5, max(0, space + steps))
    overflow = space + steps - target
    coins = max(overflow, -run.state.players[seat].doubloons)
    _emit_move(run, seat, space, target, coins)


def move_reputation(run: Run, seat: int, target: int) -> int:
    """Move ``seat``'s token to space ``target`` (Bandit, Captain: no overflow); the spaces moved."""
    space = run.state.space(seat)
    _emit_move(run, seat, space, target, 0)
    return abs(target - space)


def _emit_move(run: Run, seat: int, space: int, target: int, coins: int) -> None:
    if space == target and coins == 0:
        return
    moved = pb.LibertaliaReputationMoved(seat=seat, from_space=space, to_space=target, doubloons=coins)
    run.emit(pb.LibertaliaEvent(reputation_moved=moved))


Place: TypeAlias = "pb.LibertaliaPlace.ValueType"
LootPlace: TypeAlias = "pb.LibertaliaLootPlace.ValueType"


def move_card(run: Run, seat: int, rank: int, source: Place, target: Place) -> None:
    """Move ``seat``'s character ``rank`` between places (to the island at its rank position)."""
    index = insert_index(run.state, seat, rank) if target == ISLAND else 0
    moved = pb.LibertaliaCharacterMoved(seat=seat, rank=rank, from_place=source, to_place=target, island_index=index)
    run.emit(pb.LibertaliaEvent(character_moved=moved))


def insert_index(state: State, seat: int, rank: int) -> int:
    """Where a card goes on the island: by rank, equal ranks by reputation (higher further right)."""
    key = (float(rank), state.space(seat))
    order_key = state.rules.order_key
    for index, card in enumerate(state.island):
        if (order_key(card.rank), _space(state, card)) > key:
            return index
    return len(state.island)


def _space(state: State, card: Card) -> int:
    return state.space(card.seat) if card.seat >= 0 else -1


def move_loot(  # noqa: PLR0917 (a move names its token, count, source and target, each with an index)
    run: Run, loot: int, count: int, source: LootPlace, source_index: int, target: LootPlace, target_index: int
) -> None:
    """Move ``count`` tokens of one type (from/to a seat's supply, a day box or the bag)."""
    if count <= 0:
        return
    moved = pb.LibertaliaLootMoved(
        loot=loot_pb(loot),
        count=count,
        from_place=source,
        from_index=source_index,
        to_place=target,
        to_index=target_index,
    )
    run.emit(pb.LibertaliaEvent(loot_moved=moved))


def effect_pb(effect: Effect) -> pb.LibertaliaEffect:
    """The LibertaliaEffect message of an effect."""
    loot = loot_pb(effect.loot) if effect.loot >= 0 else 0
    return pb.LibertaliaEffect(seat=effect.seat, rank=effect.rank, loot=loot, timing=TIMING_PB[effect.timing])  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def anchor_reward(run: Run, seat: int, doubloons: int, *, rank: int = 0, loot: int = -1, reward: int = 0) -> None:
    """Add ``doubloons`` to ``seat``'s anchor total (netted at scoring), for the anchor ability of
    character ``rank`` or of loot type ``loot``, with the ``reward`` chosen if it was a choice."""
    event = pb.LibertaliaAnchorReward(seat=seat, rank=rank, reward=reward, doubloons=doubloons)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    if loot >= 0:
        event.loot = loot_pb(loot)
    run.emit(pb.LibertaliaEvent(anchor_reward=event))


def queue_effects(run: Run, seat: int, timing: str, effects: list[Effect]) -> None:
    """These abilities become due (NIGHT and ANCHOR: ``seat``'s turn has come)."""
    queued = pb.LibertaliaEffectsQueued(seat=seat, timing=TIMING_PB[timing], effects=[effect_pb(e) for e in effects])
    run.emit(pb.LibertaliaEvent(effects_queued=queued))
