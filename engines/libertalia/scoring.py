"""Anchor netting, banking and the end of the game (rules 4 and 5).

The anchor's gains and losses of a seat are added up and applied at once, doubloons = max(0, doubloons +
net), so no order of anchor abilities can dodge a loss (D12).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.contract import Result, rank_by
from engines.libertalia.data import AMULET, BARREL, CHEST, MAP, NUMBERS, RELIC, number, numbers_of
from engines.libertalia.state import State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["anchor_net", "finish_events", "map_score", "result", "voyage_scores"]

N = NUMBERS


def map_score(maps: int, state: State) -> int:
    """Doubloons for ``maps`` maps (an Explorer's extra map included) on the map's side."""
    if state.stormy(MAP):
        return maps * (maps + 1) // 2 if state.voyage == 3 else 0
    pair, trio = int(N["calm_map_pair"]), int(N["calm_map_trio"])
    return max(trio * t + pair * ((maps - 3 * t) // 2) for t in range(maps // 3 + 1))


def _aristocrat(state: State, seat: int) -> int:
    alone = not any(34 in p.ship for s, p in enumerate(state.players) if s != seat)
    return number(34, "anchor_alone" if alone else "anchor_shared")


def _collector(state: State, seat: int) -> int:
    kinds = sum(1 for n in state.players[seat].supply if n)
    table = numbers_of(35, "anchor_by_types")
    return table[min(kinds, len(table) - 1)]


_TREASURER = (BARREL, AMULET, CHEST)
_CHARACTER_ANCHOR: dict[int, Callable[[State, int], int]] = {
    7: lambda s, seat: number(7, "anchor"),
    8: lambda s, seat: number(8, "anchor_per_barrel") * s.players[seat].supply[BARREL],
    11: lambda s, seat: number(11, "anchor"),
    32: lambda s, seat: (
        number(32, "anchor_per_token") * sum(s.players[seat].supply[t] for t in (BARREL, AMULET, CHEST))
    ),
    33: lambda s, seat: number(33, "anchor"),
    34: _aristocrat,
    35: _collector,
    36: lambda s, seat: number(36, "anchor"),
}


def _loot_anchor(state: State, seat: int) -> int:
    supply = state.players[seat].supply
    maps = supply[MAP] + (number(10, "extra_maps") if supply[MAP] and 10 in state.players[seat].ship else 0)
    total = map_score(maps, state)
    if not state.stormy(BARREL):  # a Stormy barrel is read when it resolves (abilities.anchor)
        total += supply[BARREL] * N["calm_barrel_anchor"]
    if not state.stormy(AMULET):
        total += supply[AMULET] * N["calm_amulet_anchor"]
    if state.stormy(CHEST):
        alone = not any(p.supply[CHEST] for s, p in enumerate(state.players) if s != seat)
        total += supply[CHEST] * (N["stormy_chest_alone"] if alone else N["stormy_chest_shared"])
    else:
        total += supply[CHEST] * N["calm_chest_anchor"]
    relic = N["stormy_relic_anchor"] if state.stormy(RELIC) else N["calm_relic_anchor"]
    return int(total + supply[RELIC] * relic)


def anchor_net(state: State, seat: int) -> int:
    """The net of every anchor ability of ``seat``: ship characters, loot, and the values recorded when
    the order-dependent ones resolved (choices, First Mate, Stormy barrels: ``anchor_gain``)."""
    player = state.players[seat]
    characters = sum(_CHARACTER_ANCHOR[r](state, seat) for r in player.ship if r in _CHARACTER_ANCHOR)
    return characters + _loot_anchor(state, seat) + player.anchor_gain


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
