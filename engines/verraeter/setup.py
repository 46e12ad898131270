"""Setting up a game of Verräter: start player, houses, lands, supply deal (all chance of the setup)."""

from __future__ import annotations

from engines.contract import GameConfig, commit_seed
from engines.prng import Prng
from engines.verraeter.data import EAGLE, ROSE, LandCard, VerraeterRules
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["start_events"]


def start_events(config: GameConfig, seed: bytes, rules: VerraeterRules, salt: bytes = b"") -> list[pb.VerraeterEvent]:
    """Game started (rules version, options, the data of the game's lands and action cards, seed commitment),
    seats and houses, the ring of lands, each seat's starting hand and the draw deck, under the rules
    ``rules``. Drawn from ``Prng(seed, "verraeter", "setup")``."""
    seats = config.seats
    prng = Prng(seed, "verraeter", "setup")
    lands = rules.lands_for(seats)
    types = {land.type for land in lands}
    name = rules.version.name
    started = pb.VerraeterGameStarted(
        rules_version=name,
        seats=seats,
        rounds=rules.rounds[seats],
        options=[pb.VerraeterOption(name=k, value=v) for k, v in config.options],
        seed_commitment=commit_seed(seed, name, salt),
        seed=seed,
        seed_salt=salt,
        land_types=[t.to_pb() for t in rules.land_types if t.id in types],
        actions=rules.actions_for(config.flag("mercenary")),  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    )
    start = prng.below(seats)
    houses = [EAGLE if (seat - start) % seats % 2 == 0 else ROSE for seat in range(seats)]
    assigned = pb.VerraeterSeatsAssigned(start_seat=start, houses=houses, strategist_seat=(start + 1) % seats)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    ring = _ring(lands, config.option("land_layout"), prng)
    laid = pb.VerraeterLandsLaid(
        lands=[pb.VerraeterLand(position=i, card_id=c.id, type=c.type, house=c.start) for i, c in enumerate(ring)]  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
    )
    events = [
        pb.VerraeterEvent(game_started=started),
        pb.VerraeterEvent(seats_assigned=assigned),
        pb.VerraeterEvent(lands_laid=laid),
    ]
    hands, deck = _deal(seats, start, rules, config.option("start_hand"), prng)
    for seat in range(seats):
        dealt = pb.VerraeterHandDealt(seat=seat, values=sorted(hands[seat]), count=len(hands[seat]))
        events.append(pb.VerraeterEvent(hand_dealt=dealt))
    events.append(pb.VerraeterEvent(supply_shuffled=pb.VerraeterSupplyShuffled(order=deck, count=len(deck))))
    return events


def _ring(lands: tuple[LandCard, ...], layout: str, prng: Prng) -> list[LandCard]:
    """Random: both sets shuffled together, no card turned (D5). Alternating: Eagle, Rose, Eagle, ...
    around the ring, each set in random order."""
    if layout == "random":
        return prng.shuffled(lands)
    eagles = prng.shuffled([land for land in lands if land.start == EAGLE])
    roses = prng.shuffled([land for land in lands if land.start == ROSE])
    return [land for pair in zip(eagles, roses, strict=True) for land in pair]


def _deal(seats: int, start: int, rules: VerraeterRules, mode: str, prng: Prng) -> tuple[list[list[int]], list[int]]:
    """Random: shuffle, deal the start hand size to each seat from the start player on (D2). Classic: each
    seat gets the fixed start hand, the rest is shuffled."""
    deck = list(rules.supply_for(seats))
    hands: list[list[int]] = [[] for _ in range(seats)]
    if mode == "classic":
        for seat in range(seats):
            for value in rules.classic_start_hand:
                deck.remove(value)
                hands[seat].append(value)
        return hands, prng.shuffled(deck)
    deck = prng.shuffled(deck)
    for i in range(rules.start_hand_size * seats):
        hands[(start + i) % seats].append(deck[i])
    return hands, deck[rules.start_hand_size * seats :]
