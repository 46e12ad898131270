"""Setting up a game of Verräter: start player, houses, lands, supply deal (all chance of the setup)."""

from __future__ import annotations

from engines.contract import GameConfig, commit_seed
from engines.prng import Prng
from engines.verraeter.data import EAGLE, ROSE, Data, LandCard
from parlour.v1 import verraeter_pb2 as pb

__all__ = ["RULES_VERSION", "start_events"]

RULES_VERSION = "verraeter/1"


def start_events(config: GameConfig, seed: bytes, data: Data, salt: bytes = b"") -> list[pb.VerraeterEvent]:
    """Game started (rules, options, data, seed commitment), seats and houses, the ring of lands, each
    seat's starting hand and the draw deck. Drawn from ``Prng(seed, "verraeter", "setup")``."""
    seats = config.seats
    prng = Prng(seed, "verraeter", "setup")
    lands = data.lands_for(seats)
    types = {land.type for land in lands}
    started = pb.VerraeterGameStarted(
        rules_version=RULES_VERSION,
        seats=seats,
        rounds=data.rounds[seats],
        options=[pb.VerraeterOption(name=k, value=v) for k, v in config.options],
        seed_commitment=commit_seed(seed, RULES_VERSION, salt),
        seed=seed,
        seed_salt=salt,
        land_types=[t.to_pb() for t in data.land_types if t.id in types],
        actions=data.actions_for(config.flag("mercenary")),  # type: ignore[arg-type]
    )
    start = prng.below(seats)
    houses = [EAGLE if (seat - start) % seats % 2 == 0 else ROSE for seat in range(seats)]
    assigned = pb.VerraeterSeatsAssigned(start_seat=start, houses=houses, strategist_seat=(start + 1) % seats)  # type: ignore[arg-type]
    ring = _ring(lands, config.option("land_layout"), prng)
    laid = pb.VerraeterLandsLaid(
        lands=[pb.VerraeterLand(position=i, card_id=c.id, type=c.type, house=c.start) for i, c in enumerate(ring)]  # type: ignore[arg-type]
    )
    events = [
        pb.VerraeterEvent(game_started=started),
        pb.VerraeterEvent(seats_assigned=assigned),
        pb.VerraeterEvent(lands_laid=laid),
    ]
    hands, deck = _deal(seats, start, data, config.option("start_hand"), prng)
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


def _deal(seats: int, start: int, data: Data, mode: str, prng: Prng) -> tuple[list[list[int]], list[int]]:
    """Random: shuffle, deal the start hand size to each seat from the start player on (D2). Classic: each
    seat gets the fixed start hand, the rest is shuffled."""
    deck = list(data.supply_for(seats))
    hands: list[list[int]] = [[] for _ in range(seats)]
    if mode == "classic":
        for seat in range(seats):
            for value in data.classic_start_hand:
                deck.remove(value)
                hands[seat].append(value)
        return hands, prng.shuffled(deck)
    deck = prng.shuffled(deck)
    for i in range(data.start_hand_size * seats):
        hands[(start + i) % seats].append(deck[i])
    return hands, deck[data.start_hand_size * seats :]
