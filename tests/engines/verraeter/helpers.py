"""Building Verräter scenarios for the tests: hand-written setup and draft events, then real commands."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engines.contract import commit_seed, fold, step
from engines.verraeter import VERRAETER, Verraeter
from engines.verraeter.data import EAGLE, ESTATE, ROSE, VerraeterRules
from engines.verraeter.state import State
from parlour.v1 import verraeter_pb2 as pb

E, R = EAGLE, ROSE
TRAITOR = pb.VERRAETER_ACTION_TRAITOR
DIPLOMAT2 = pb.VERRAETER_ACTION_DIPLOMAT2
DIPLOMAT5 = pb.VERRAETER_ACTION_DIPLOMAT5
STRATEGIST = pb.VERRAETER_ACTION_STRATEGIST
BUILDER = pb.VERRAETER_ACTION_BUILDER
FARMER = pb.VERRAETER_ACTION_FARMER
MERCENARY = pb.VERRAETER_ACTION_MERCENARY
SEED = b"scenario"

# A 12-land ring: the pair at position 0 is an Eagle river (base 5) next to a Rose village (base 10).
RING12 = [
    ("river", E), ("village", R), ("wild", E), ("meadow", R), ("forest", E), ("city", R),
    ("wild", R), ("meadow", E), ("river", R), ("forest", R), ("village", E), ("city", E),
]  # fmt: skip


def ev(**kind: object) -> pb.VerraeterEvent:
    """An event with one kind set, e.g. ``ev(land_flipped=pb.VerraeterLandFlipped(...))``."""
    return pb.VerraeterEvent(**kind)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def setup_events(
    seats: int = 4,
    *,
    start: int = 0,
    houses: Sequence[int] | None = None,
    ring: Sequence[tuple[str, int]] = RING12,
    hands: Sequence[Sequence[int]] | None = None,
    deck: Sequence[int] = (),
    estates: Sequence[int] | None = None,
    options: dict[str, str] | None = None,
    game: Verraeter = VERRAETER,
) -> list[pb.VerraeterEvent]:
    """Hand-written setup under ``game``'s rules version: game started, seats, ring, hands, deck, then one
    setup estate per seat (at ``estates[i]`` for the i-th seat from the start player; default: lands 2, 3,
    4, ...)."""
    config = game.spec.config(seats, options)
    data: VerraeterRules = game.rules  # type: ignore[assignment]  # Game.rules is typed as the contract's member
    version = game.spec.rules_version
    houses = houses or [E if (s - start) % seats % 2 == 0 else R for s in range(seats)]
    hands = hands or [[3, 4, 5]] * seats
    estates = estates if estates is not None else [2 + i for i in range(seats)]
    started = pb.VerraeterGameStarted(
        rules_version=version,
        seats=seats,
        rounds=data.rounds[seats],
        options=[pb.VerraeterOption(name=k, value=v) for k, v in config.options],
        seed_commitment=commit_seed(SEED, version),
        seed=SEED,
        land_types=[t.to_pb() for t in data.land_types],
        actions=data.actions_for(config.flag("mercenary")),
    )
    lands = [pb.VerraeterLand(position=i, card_id=f"{t}-{i}", type=t, house=h) for i, (t, h) in enumerate(ring)]
    events = [
        ev(game_started=started),
        ev(
            seats_assigned=pb.VerraeterSeatsAssigned(
                start_seat=start, houses=houses, strategist_seat=(start + 1) % seats
            )
        ),
        ev(lands_laid=pb.VerraeterLandsLaid(lands=lands)),
    ]
    events += [ev(hand_dealt=pb.VerraeterHandDealt(seat=s, values=h, count=len(h))) for s, h in enumerate(hands)]
    events.append(ev(supply_shuffled=pb.VerraeterSupplyShuffled(order=deck, count=len(deck))))
    for i, position in enumerate(estates):
        placed = pb.VerraeterBuildingPlaced(seat=(start + i) % seats, position=position, side=ESTATE)
        events.append(ev(building_placed=placed))
    return events


def new_game(seats: int = 4, game: Verraeter = VERRAETER, **kwargs: object) -> State:
    """The state after :func:`setup_events`, folded by ``game`` (the strategist is to choose the battlefield)."""
    state = fold(game, setup_events(seats, game=game, **kwargs))  # type: ignore[arg-type]  # setup options passed through as keyword arguments
    assert state is not None
    return state


def draft_events(state: State, position: int, actions: Mapping[int, int], hidden: int) -> list[pb.VerraeterEvent]:
    """Hand-written battlefield choice and draft: ``actions`` maps every seat to its card, ``hidden`` is
    the hidden card, the other cards are left over."""
    rest = [a for a in state.actions if a != hidden and a not in actions.values()]
    order = [hidden, *(actions[state.seat_after(state.start_seat, i)] for i in range(state.seats)), *rest]
    events = [
        ev(
            battlefield_chosen=pb.VerraeterBattlefieldChosen(
                seat=state.strategist, position=position, round=state.round
            )
        ),
        ev(action_cards_shuffled=pb.VerraeterActionCardsShuffled(round=state.round, order=order, count=len(order))),
    ]
    packet = order[1:]
    for i in range(state.seats):
        seat = state.seat_after(state.start_seat, i)
        events.append(ev(packet_passed=pb.VerraeterPacketPassed(seat=seat, cards=sorted(packet), count=len(packet))))
        events.append(ev(action_card_taken=pb.VerraeterActionCardTaken(seat=seat, card=actions[seat])))
        packet.remove(actions[seat])
    return events


def drafted(state: State, position: int, actions: Mapping[int, int], hidden: int, game: Verraeter = VERRAETER) -> State:
    """The state after :func:`draft_events`, folded by ``game``: the supply phase, start player first."""
    after = fold(game, draft_events(state, position, actions, hidden), state)
    assert after is not None
    return after


def act(
    state: State, seat: int, command: pb.VerraeterCommand, game: Verraeter = VERRAETER
) -> tuple[State, list[pb.VerraeterEvent]]:
    """Submit ``command`` for ``seat`` through the generic checks (``game``); the new state and the events."""
    events = step(game, state, seat, command)
    after = fold(game, events, state)
    assert after is not None
    return after, events


def play_all(
    state: State, plays: dict[int, Sequence[int]], game: Verraeter = VERRAETER
) -> tuple[State, list[pb.VerraeterEvent]]:
    """Every seat plays its supply values in turn order (missing seats play nothing)."""
    events: list[pb.VerraeterEvent] = []
    for i in range(state.seats):
        seat = state.seat_after(state.start_seat, i)
        state, more = act(state, seat, supply(*plays.get(seat, ())), game)
        events += more
    return state, events


def kinds(events: Iterable[pb.VerraeterEvent]) -> list[str]:
    """The kind of each event."""
    return [str(e.WhichOneof("kind")) for e in events]


def first(events: Iterable[pb.VerraeterEvent], kind: str) -> object:
    """The payload of the first event of ``kind``."""
    return next(getattr(e, kind) for e in events if e.WhichOneof("kind") == kind)


def battlefield(position: int) -> pb.VerraeterCommand:
    return pb.VerraeterCommand(choose_battlefield=pb.VerraeterChooseBattlefield(position=position))


def take(card: int) -> pb.VerraeterCommand:
    return pb.VerraeterCommand(take_action_card=pb.VerraeterTakeActionCard(card=card))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def supply(*values: int) -> pb.VerraeterCommand:
    return pb.VerraeterCommand(play_supply=pb.VerraeterPlaySupply(values=values))


def place(position: int, side: int = ESTATE) -> pb.VerraeterCommand:
    return pb.VerraeterCommand(place_building=pb.VerraeterPlaceBuilding(position=position, side=side))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int


def flip(position: int) -> pb.VerraeterCommand:
    return pb.VerraeterCommand(flip_building=pb.VerraeterFlipBuilding(position=position))


def pass_build() -> pb.VerraeterCommand:
    return pb.VerraeterCommand(pass_build=pb.VerraeterPassBuild())


def discard(*values: int) -> pb.VerraeterCommand:
    return pb.VerraeterCommand(discard_cards=pb.VerraeterDiscardCards(values=values))


def declare(house: int) -> pb.VerraeterCommand:
    return pb.VerraeterCommand(declare_mercenary=pb.VerraeterDeclareMercenary(house=house))  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
