"""Setting up Libertalia (rules 2 and 3.1): reputation order, board sides, the bag and each voyage.

All chance is drawn here from :class:`engines.prng.Prng` streams of the seed and written into events.
"""

from __future__ import annotations

from engines.contract import GameConfig, commit_seed
from engines.libertalia.chance import bag_tokens, deal_ranks
from engines.libertalia.data import INCOME, LOOT_COUNTS, TYPES, VOYAGE_DAYS, loot_pb
from engines.prng import Prng
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["BOARDS", "RULES_VERSION", "start_events", "voyage_event"]

RULES_VERSION = "libertalia/2"
BOARDS = ("calm", "stormy", "uncharted")


def start_events(config: GameConfig, seed: bytes, salt: bytes = b"") -> list[pb.LibertaliaEvent]:
    """Game started (sides, reputation, seed commitment), the bag filled, and voyage 1 set up."""
    seats = config.seats
    prng = Prng(seed, "setup")
    reputation = _reputation(config.option("reputation"), seats, prng)
    sides = _sides(config.option("board"), prng)
    started = pb.LibertaliaGameStarted(
        rules_version=RULES_VERSION,
        seats=seats,
        board=config.option("board"),
        sides=[pb.LIBERTALIA_SIDE_CALM + side for side in sides],  # type: ignore[misc]
        reputation=reputation,
        midshipman=seats == 2,
        seed_commitment=commit_seed(seed, RULES_VERSION, salt),
        seed=seed,
        seed_salt=salt,
        hidden_scores=config.option("scores") == "hidden",
        reputation_setup=config.option("reputation"),
    )
    order = Prng(seed, "bag").shuffled(bag_tokens(LOOT_COUNTS))
    filled = pb.LibertaliaBagFilled(tokens=[loot_pb(t) for t in order], count=len(order))
    voyage = voyage_event(seed, 1, seats, LOOT_COUNTS, (), tuple(reputation), order)
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
    seed: bytes,
    voyage: int,
    seats: int,
    bag: tuple[int, ...],
    dealt: tuple[int, ...],
    reputation: tuple[int, ...],
    order: list[int] | None = None,
) -> pb.LibertaliaVoyageStarted:
    """Voyage setup (3.1): fill the day boxes from the bag (``order``: the bag's shuffled order, else drawn
    from stream ``voyage/<v>``), deal six new ranks and pay each seat its reputation income."""
    prng = Prng(seed, "voyage", str(voyage))
    ranks = deal_ranks(prng, dealt)
    tokens = order if order is not None else prng.shuffled(bag_tokens(bag))
    days = VOYAGE_DAYS[voyage - 1]
    per_day = 3 if seats == 2 else seats
    boxes = [
        pb.LibertaliaLootBox(tokens=[loot_pb(t) for t in tokens[d * per_day : (d + 1) * per_day]]) for d in range(days)
    ]
    income = [INCOME[reputation.index(seat)] for seat in range(seats)]
    return pb.LibertaliaVoyageStarted(voyage=voyage, days=days, ranks=ranks, boxes=boxes, income=income)
