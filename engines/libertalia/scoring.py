"""Anchor netting, banking and the end of the game (rules 4 and 5).

The anchor's gains and losses of a seat are added up and applied at once, doubloons = max(0, doubloons +
net), so no order of anchor abilities can dodge a loss (D12). Every number comes from the rules of the
state's version (``state.rules``). With the flag ``anchor=netted`` (libertalia/1) the First Mate and
Stormy barrels are netted here too, read as the anchor left the ship and the track; with
``anchor=ordered`` (libertalia/2) they recorded their value when they resolved (``anchor_gain``).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.contract import Result, rank_by
from engines.libertalia.data import AMULET, ANCHOR_NETTED, BARREL, CHEST, MAP, RELIC
from engines.libertalia.state import State
from parlour.v1 import libertalia_pb2 as pb

__all__ = [
    "FIRST_MATE",
    "anchor_net",
    "finish_events",
    "first_mate_gain",
    "map_score",
    "result",
    "stormy_barrel_gain",
    "voyage_scores",
]

FIRST_MATE = 38


def map_score(maps: int, state: State) -> int:
    """Doubloons for ``maps`` maps (an Explorer's extra map included) on the map's side."""
    if state.stormy(MAP):
        return maps * (maps + 1) // 2 if state.voyage == 3 else 0
    pair, trio = state.rules.board["calm_map_pair"], state.rules.board["calm_map_trio"]
    return max(trio * t + pair * ((maps - 3 * t) // 2) for t in range(maps // 3 + 1))


def first_mate_gain(state: State, seat: int) -> int:
    """The First Mate's anchor ability: a gain per character in the seat's ship now."""
    return state.rules.number(FIRST_MATE, "anchor_per_character") * len(state.players[seat].ship)


def stormy_barrel_gain(state: State, seat: int) -> int:
    """One Stormy barrel's anchor ability, read on the track now: more on the leftmost spaces."""
    board = state.rules.board
    low = state.space(seat) < board["stormy_barrel_low_spaces"]
    return board["stormy_barrel_low" if low else "stormy_barrel_high"]


def _aristocrat(state: State, seat: int) -> int:
    alone = not any(34 in p.ship for s, p in enumerate(state.players) if s != seat)
    return state.rules.number(34, "anchor_alone" if alone else "anchor_shared")


def _collector(state: State, seat: int) -> int:
    kinds = sum(1 for n in state.players[seat].supply if n)
    table = state.rules.numbers_of(35, "anchor_by_types")
    return table[min(kinds, len(table) - 1)]


_TREASURER = (BARREL, AMULET, CHEST)
_CHARACTER_ANCHOR: dict[int, Callable[[State, int], int]] = {
    7: lambda s, seat: s.rules.number(7, "anchor"),
    8: lambda s, seat: s.rules.number(8, "anchor_per_barrel") * s.players[seat].supply[BARREL],
    11: lambda s, seat: s.rules.number(11, "anchor"),
    32: lambda s, seat: s.rules.number(32, "anchor_per_token") * sum(s.players[seat].supply[t] for t in _TREASURER),
    33: lambda s, seat: s.rules.number(33, "anchor"),
    34: _aristocrat,
    35: _collector,
    36: lambda s, seat: s.rules.number(36, "anchor"),
}


def _loot_anchor(state: State, seat: int) -> int:
    supply, board = state.players[seat].supply, state.rules.board
    extra = state.rules.number(10, "extra_maps") if supply[MAP] and 10 in state.players[seat].ship else 0
    total = map_score(supply[MAP] + extra, state)
    if not state.stormy(BARREL):  # a Stormy barrel depends on the track (see _netted, abilities.anchor)
        total += supply[BARREL] * board["calm_barrel_anchor"]
    if not state.stormy(AMULET):
        total += supply[AMULET] * board["calm_amulet_anchor"]
    if state.stormy(CHEST):
        alone = not any(p.supply[CHEST] for s, p in enumerate(state.players) if s != seat)
        total += supply[CHEST] * (board["stormy_chest_alone"] if alone else board["stormy_chest_shared"])
    else:
        total += supply[CHEST] * board["calm_chest_anchor"]
    relic = board["stormy_relic_anchor"] if state.stormy(RELIC) else board["calm_relic_anchor"]
    return int(total + supply[RELIC] * relic)


def _netted(state: State, seat: int) -> int:
    """``anchor=netted``: the First Mate and Stormy barrels, read at scoring (nothing is queued for them)."""
    player = state.players[seat]
    total = first_mate_gain(state, seat) if FIRST_MATE in player.ship else 0
    if state.stormy(BARREL):
        total += player.supply[BARREL] * stormy_barrel_gain(state, seat)
    return total


def anchor_net(state: State, seat: int) -> int:
    """The net of every anchor ability of ``seat``: ship characters, loot, and the values recorded when
    the order-dependent ones resolved (choices; with ``anchor=ordered`` also the First Mate and Stormy
    barrels: ``anchor_gain``)."""
    player = state.players[seat]
    characters = sum(_CHARACTER_ANCHOR[r](state, seat) for r in player.ship if r in _CHARACTER_ANCHOR)
    netted = _netted(state, seat) if state.rules.anchor == ANCHOR_NETTED else 0
    return characters + _loot_anchor(state, seat) + netted + player.anchor_gain


def voyage_scores(state: State) -> list[pb.LibertaliaSeatScore]:
    """Each seat's anchor net, banked doubloons and new score dial."""
    scores = []
    for seat, player in enumerate(state.players):
        net = anchor_net(state, seat)
        banked = max(0, player.doubloons + net)
        scores.append(pb.LibertaliaSeatScore(seat=seat, anchor_net=net, banked=banked, score=player.score + banked))
    return scores


def result(state: State) -> Result:
    """Standings: score, ties to the reputation furthest right (reputation never ties)."""
    seats = list(range(state.seats))
    keys = {s: (state.players[s].score, state.space(s)) for s in seats}
    return rank_by(seats, keys, {s: state.players[s].score for s in seats})


def finish_events(state: State) -> list[pb.LibertaliaEvent]:
    """The game-over event: final scores, the winner and the revealed seed."""
    standings = result(state)
    scores = [pb.LibertaliaSeatScore(seat=s, score=p.score) for s, p in enumerate(state.players)]
    finished = pb.LibertaliaGameFinished(
        scores=scores, winner=standings.winners[0], seed=state.seed, seed_salt=state.seed_salt
    )
    return [pb.LibertaliaEvent(game_finished=finished)]
