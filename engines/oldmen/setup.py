"""Setting up a deal of Old Men of the Forest: start player, hands and orangutan row (all chance here)."""

from __future__ import annotations

from engines.contract import GameConfig, commit_seed
from engines.oldmen.data import DECK, OldmenRules
from engines.prng import Prng
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["deal_events", "start_events"]


def start_events(config: GameConfig, seed: bytes, rules: OldmenRules, salt: bytes = b"") -> list[pb.OldmenEvent]:
    """The first event of a game (its rules version and orangutan table, options, seed commitment) followed
    by the first deal, under ``rules``."""
    name = rules.version.name
    started = pb.OldmenGameStarted(
        rules_version=name,
        seats=config.seats,
        match_deals=config.number("match_deals"),
        seed_commitment=commit_seed(seed, name, salt),
        seed=seed,
        seed_salt=salt,
        orangutans=[o.to_pb() for o in rules.orangutans],
    )
    return [pb.OldmenEvent(game_started=started), *deal_events(1, config.seats, seed, rules)]


def deal_events(deal: int, seats: int, seed: bytes, rules: OldmenRules) -> list[pb.OldmenEvent]:
    """The events of a fresh deal: start-player draw, hands, orangutan deck and row (N+1 cards)."""
    prng = Prng(seed, "oldmen", f"deal-{deal}")
    events = [pb.OldmenEvent(start_player_drawn=_draw_start_player(deal, seats, prng))]
    deck = prng.shuffled(DECK)
    size = rules.hand_size
    for seat in range(seats):
        hand = sorted(deck[seat * size : (seat + 1) * size])
        dealt = pb.OldmenHandDealt(seat=seat, cards=[c.to_pb() for c in hand], count=len(hand))
        events.append(pb.OldmenEvent(hand_dealt=dealt))
    order = [o.id for o in prng.shuffled(rules.orangutans)]
    events.append(pb.OldmenEvent(orangutan_deck_shuffled=pb.OldmenOrangutanDeckShuffled(order=order, count=len(order))))
    row = pb.OldmenOrangutansRevealed(orangutan_ids=order[: seats + 1])
    events.append(pb.OldmenEvent(orangutans_revealed=row))
    return events


def _draw_start_player(deal: int, seats: int, prng: Prng) -> pb.OldmenStartPlayerDrawn:
    """Deal face-up cards to the seats still tied for highest until one seat is highest (D12)."""
    deck = prng.shuffled(DECK)
    drawn = pb.OldmenStartPlayerDrawn(deal=deal)
    tied = list(range(seats))
    attempt = 0
    while len(tied) > 1:
        attempt += 1
        values: dict[int, int] = {}
        for seat in tied:
            card = deck.pop()
            values[seat] = card.value
            drawn.draws.append(pb.OldmenStartDraw(attempt=attempt, seat=seat, card=card.to_pb()))
        best = max(values.values())
        tied = [seat for seat in tied if values[seat] == best]
    drawn.start_seat = tied[0]
    return drawn
