"""Setting up Libertalia (rules 2 and 3.1): reputation order, board sides, the bag and each voyage.

All chance is drawn here from :class:`engines.prng.Prng` streams of the seed and written into events.
"""

from __future__ import annotations

from engines.contract import GameConfig, commit_seed
from engines.libertalia.chance import bag_tokens, deal_ranks
from engines.libertalia.data import TYPES, LibertaliaRules, loot_pb
from engines.prng import Prng
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["BOARDS", "start_events", "voyage_event"]

BOARDS = ("calm", "stormy", "uncharted")


def start_events(
    rules: LibertaliaRules, config: GameConfig, seed: bytes, salt: bytes = b""
) -> list[pb.LibertaliaEvent]:
    """Game started (sides, reputation, seed commitment, the name of ``rules``), the bag filled, and voyage 1
    set up."""
    seats = config.seats
    name = rules.version.name
    prng = Prng(seed, "setup")
    reputation = _reputation(config.option("reputation"), seats, prng)
    sides = _sides(config.option("board"), prng)
    started = pb.LibertaliaGameStarted(
        rules_version=name,
        seats=seats,
        board=config.option("board"),
        sides=[pb.LIBERTALIA_SIDE_CALM + side for side in sides],  # type: ignore[misc]  # protobuf's stubs type enum fields as their ValueType, not int
        reputation=reputation,
        midshipman=seats == 2,
        seed_commitment=commit_seed(seed, name, salt),
        seed=seed,
        seed_salt=salt,
        hidden_scores=config.option("scores") == "hidden",
        reputation_setup=config.option("reputation"),
    )
    order = Prng(seed, "bag").shuffled(bag_tokens(rules.loot_counts))
    filled = pb.LibertaliaBagFilled(tokens=[loot_pb(t) for t in order], count=len(order))
    voyage = voyage_event(rules, seed, 1, seats, rules.loot_counts, (), tuple(reputation), order)
    return [
        pb.LibertaliaEvent(game_started=started),
        pb.LibertaliaEvent(bag_filled=filled),
        pb.LibertaliaEvent(voyage_started=voyage),
    ]


def _reputation(setup: str, seats: int, prng: Prng) -> list[int]:
    """The track, left to right: random over all six spaces, or the players centred (dummies outside)."""
    if setup == "middle":
        left = (6 - seats) // 2
        return [*[-1] * left, *prng.shuffled(range(seats)), *[-1] * (6 - seats - left)]
    return prng.shuffled([*range(seats), *[-1] * (6 - seats)])


def _sides(board: str, prng: Prng) -> list[int]:
    if board == "uncharted":
        return [prng.below(2) for _ in range(TYPES)]
    return [1 if board == "stormy" else 0] * TYPES


def voyage_event(  # noqa: PLR0917 (everything a voyage's setup depends on)
    rules: LibertaliaRules,
    seed: bytes,
    voyage: int,
    seats: int,
    bag: tuple[int, ...],
    dealt: tuple[int, ...],
    reputation: tuple[int, ...],
    order: list[int] | None = None,
) -> pb.LibertaliaVoyageStarted:
    """Voyage setup (3.1): fill the day boxes from the bag (``order``: the bag's shuffled order, else drawn
    from stream ``voyage/<v>``), deal six new ranks and pay each seat its reputation income (the days, the
    ranks dealt and the income are the data of ``rules``)."""
    prng = Prng(seed, "voyage", str(voyage))
    ranks = deal_ranks(prng, dealt, rules.ranks_per_voyage)
    tokens = order if order is not None else prng.shuffled(bag_tokens(bag))
    days = rules.voyage_days[voyage - 1]
    per_day = 3 if seats == 2 else seats
    boxes = [
        pb.LibertaliaLootBox(tokens=[loot_pb(t) for t in tokens[d * per_day : (d + 1) * per_day]]) for d in range(days)
    ]
    income = [rules.income[reputation.index(seat)] for seat in range(seats)]
    return pb.LibertaliaVoyageStarted(voyage=voyage, days=days, ranks=ranks, boxes=boxes, income=income)
