"""Builders for Old Men of the Forest tests: hand-written setup events, commands, and stepping through the engine.

A test describes the deal it needs (hands, orangutan row and deck, start seat); :func:`setup` turns that into
the same kinds of events ``start`` would write, and :func:`run` plays commands through ``engines.contract.step``
exactly as the server does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engines.contract import commit_seed, fold, step
from engines.oldmen import OLDMEN, OldMen
from engines.oldmen.data import DECK, Card
from engines.oldmen.state import State
from parlour.v1 import oldmen_pb2 as pb

SEED = b"hand-written"
RULES_VERSION = OLDMEN.spec.rules_version
ALL_ORANGUTANS = tuple(o.id for o in OLDMEN.rules.orangutans)
_COLOURS = {
    "red": pb.OLDMEN_COLOUR_RED,
    "yellow": pb.OLDMEN_COLOUR_YELLOW,
    "blue": pb.OLDMEN_COLOUR_BLUE,
    "green": pb.OLDMEN_COLOUR_GREEN,
    "brown": pb.OLDMEN_COLOUR_BROWN,
}


def card(text: str) -> Card:
    """A card from ``"yellow 8"``."""
    colour, value = text.split()
    return Card(_COLOURS[colour], int(value))


def cards(*texts: str) -> tuple[Card, ...]:
    """Several cards from ``"yellow 8"``-style strings."""
    return tuple(card(t) for t in texts)


def fill_hands(seats: int, fixed: dict[int, Sequence[str]], size: int = 10) -> list[tuple[Card, ...]]:
    """Hands of ``size`` cards: the ``fixed`` cards of each seat first, then unused cards of the deck."""
    used = {card(t) for texts in fixed.values() for t in texts}
    spare = [c for c in DECK if c not in used]
    hands = []
    for seat in range(seats):
        hand = [card(t) for t in fixed.get(seat, ())]
        while len(hand) < size:
            hand.append(spare.pop(0))
        hands.append(tuple(hand))
    return hands


def setup_events(
    hands: Sequence[Sequence[Card]],
    *,
    start_seat: int = 0,
    order: Sequence[str] = ALL_ORANGUTANS,
    match_deals: int = 1,
    seed: bytes = SEED,
    game: OldMen = OLDMEN,
) -> list[pb.OldmenEvent]:
    """GameStarted (under ``game``'s rules version), StartPlayerDrawn, one HandDealt per seat,
    OrangutanDeckShuffled and the N+1-card row."""
    seats = len(hands)
    version = game.spec.rules_version
    started = pb.OldmenGameStarted(
        rules_version=version,
        seats=seats,
        match_deals=match_deals,
        seed_commitment=commit_seed(seed, version),
        seed=seed,
        orangutans=[o.to_pb() for o in game.rules.orangutans],
    )
    events = [
        pb.OldmenEvent(game_started=started),
        pb.OldmenEvent(start_player_drawn=pb.OldmenStartPlayerDrawn(deal=1, start_seat=start_seat)),
    ]
    for seat, hand in enumerate(hands):
        dealt = pb.OldmenHandDealt(seat=seat, cards=[c.to_pb() for c in hand], count=len(hand))
        events.append(pb.OldmenEvent(hand_dealt=dealt))
    shuffled = pb.OldmenOrangutanDeckShuffled(order=list(order), count=len(order))
    events.append(pb.OldmenEvent(orangutan_deck_shuffled=shuffled))
    row = pb.OldmenOrangutansRevealed(orangutan_ids=list(order[: seats + 1]))
    events.append(pb.OldmenEvent(orangutans_revealed=row))
    return events


def setup(
    hands: Sequence[Sequence[Card]],
    *,
    start_seat: int = 0,
    order: Sequence[str] = ALL_ORANGUTANS,
    match_deals: int = 1,
    game: OldMen = OLDMEN,
) -> State:
    """The state after :func:`setup_events`, folded by ``game``."""
    events = setup_events(hands, start_seat=start_seat, order=order, match_deals=match_deals, game=game)
    state = fold(game, events)
    assert state is not None
    return state


def play(text: str) -> pb.OldmenCommand:
    """The command to play a card (``"red 5"``)."""
    c = card(text)
    return pb.OldmenCommand(play_card=pb.OldmenPlayCard(card=c.to_pb()))


def take(from_seat: int) -> pb.OldmenCommand:
    """The command to take the card ``from_seat`` played."""
    return pb.OldmenCommand(take_card=pb.OldmenTakeCard(from_seat=from_seat))


def save(orangutan_id: str) -> pb.OldmenCommand:
    """The command to save an orangutan."""
    return pb.OldmenCommand(save_orangutan=pb.OldmenSaveOrangutan(orangutan_id=orangutan_id))


def decline() -> pb.OldmenCommand:
    """The command to save no orangutan this round."""
    return pb.OldmenCommand(decline_save=pb.OldmenDeclineSave())


def run(
    state: State, moves: Iterable[tuple[int, pb.OldmenCommand]], game: OldMen = OLDMEN
) -> tuple[State, list[pb.OldmenEvent]]:
    """Step every ``(seat, command)`` through the engine contract (``game``); the final state and all events
    caused."""
    events: list[pb.OldmenEvent] = []
    for seat, command in moves:
        caused = step(game, state, seat, command)
        events += caused
        for event in caused:
            state = game.evolve(state, event)
    return state, events


def play_trick(state: State, *texts: str, game: OldMen = OLDMEN) -> tuple[State, list[pb.OldmenEvent]]:
    """Each seat from the leader on plays the given card, in play order."""
    moves = [((state.leader + i) % state.seats, play(t)) for i, t in enumerate(texts)]
    return run(state, moves, game)


def kinds(events: Iterable[pb.OldmenEvent]) -> list[str]:
    """The event kinds, in order."""
    return [str(e.WhichOneof("kind")) for e in events]


def of_kind(events: Iterable[pb.OldmenEvent], kind: str) -> list[pb.OldmenEvent]:
    """The events of one kind, in order."""
    return [e for e in events if e.WhichOneof("kind") == kind]


def as_cards(messages: Iterable[pb.OldmenCard]) -> list[Card]:
    """Cards from protobuf card messages."""
    return [Card.from_pb(m) for m in messages]
