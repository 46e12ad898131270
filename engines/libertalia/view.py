"""What a seat or a spectator of Libertalia may see (rules 9): the view of a state and redacted events."""

from __future__ import annotations

from collections.abc import Callable

from engines.libertalia.data import DAY, TYPES, loot_pb
from engines.libertalia.ops import GRAVEYARD, HAND, effect_pb
from engines.libertalia.state import Phase, State
from parlour.v1 import libertalia_pb2 as pb

__all__ = ["redact", "view"]


def view(state: State, seat: int | None, *, reveal: bool = False) -> pb.LibertaliaView:
    """The board as ``seat`` sees it: its own hand, graveyard, selection and (with hidden scores) score
    dial; everything public; never the bag's contents beyond its size, even once the game is over. With
    ``reveal`` (a finished game whose policy makes everything public) every hand, graveyard, selection and
    score dial is shown to all."""
    day = state.rules.timed[DAY]
    result = pb.LibertaliaView(
        phase=state.phase.value,  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        voyage=state.voyage,
        day=state.day,
        days=state.days,
        sides=[pb.LIBERTALIA_SIDE_CALM + s for s in state.sides],  # type: ignore[misc]  # protobuf's stubs type enum fields as their ValueType, not int
        reputation=state.reputation,
        island=[
            pb.LibertaliaIslandCard(
                seat=c.seat,
                rank=c.rank,
                day_done=c.day_done or c.seat < 0 or c.rank not in day,
                dusk_done=c.dusk_done,
            )
            for c in state.island
        ],
        boxes=[pb.LibertaliaLootBox(tokens=[loot_pb(t) for t in box]) for box in state.boxes],
        bag_count=sum(state.bag),
        dealt=state.dealt,
        queue=[effect_pb(e) for e in state.queue],
        midshipman=state.midshipman,
    )
    for s, player in enumerate(state.players):
        mine = s == seat or reveal
        seat_view = result.seats.add(
            seat=s,
            hand_count=len(player.hand),
            hand=player.hand if mine else (),
            ship=[pb.LibertaliaShipCard(rank=r, kept=r in player.kept) for r in player.ship],
            graveyard_count=len(player.graveyard),
            graveyard=sorted(player.graveyard) if mine else (),
            supply=[
                pb.LibertaliaLootCount(loot=loot_pb(t), count=player.supply[t])
                for t in range(TYPES)
                if player.supply[t]
            ],
            doubloons=player.doubloons,
            score=player.score if mine or not state.hidden_scores or state.phase is Phase.OVER else 0,
            has_selected=bool(player.selected),
            selected=player.selected if mine else 0,
            reputation_space=state.space(s),
        )
        del seat_view
    if state.prompt is not None:
        p = state.prompt
        loot = loot_pb(p.loot) if p.loot >= 0 else 0
        result.prompt.CopyFrom(
            pb.LibertaliaPrompt(seat=p.seat, kind=p.kind, source_rank=p.source, ability_rank=p.ability, loot=loot)  # type: ignore[arg-type]  # protobuf's stubs type enum fields as their ValueType, not int
        )
    return result


def redact(
    event: pb.LibertaliaEvent, seat: int | None, *, finished: bool = False, voyages: int = 3
) -> pb.LibertaliaEvent:
    """``event`` as ``seat`` may see it: the bag's order is removed, other seats' selections (before the
    reveal) and Surgeon returns lose their rank, with hidden scores other seats' anchor net and banked
    doubloons read 0, and so does their score dial until the last voyage (of ``voyages``) is scored (the
    final dials are public at the end, rules D4, under every policy), and the seed and its salt (first and
    final event) are removed. ``finished`` (a finished game whose policy makes everything public): the event
    is returned whole."""
    kind = event.WhichOneof("kind")
    if finished:
        return event
    if kind == "bag_filled":
        return pb.LibertaliaEvent(bag_filled=pb.LibertaliaBagFilled(count=event.bag_filled.count))
    hide = _HIDES.get(str(kind))
    if hide is None or not hide(event, seat):
        return event
    copy = pb.LibertaliaEvent()
    copy.CopyFrom(event)
    _CLEAR[str(kind)](copy, seat)
    if kind == "voyage_scored" and event.voyage_scored.voyage == voyages:  # the final dials
        for shown, scored in zip(copy.voyage_scored.scores, event.voyage_scored.scores, strict=True):
            shown.score = scored.score
    return copy


def _clear_seed(message: pb.LibertaliaGameStarted | pb.LibertaliaGameFinished) -> None:
    message.ClearField("seed")
    message.ClearField("seed_salt")


def _clear_scores(event: pb.LibertaliaEvent, seat: int | None) -> None:
    for score in event.voyage_scored.scores:
        if score.seat != seat:
            score.anchor_net = 0
            score.banked = 0
            score.score = 0


_HIDES: dict[str, Callable[[pb.LibertaliaEvent, int | None], bool]] = {
    "game_started": lambda e, seat: bool(e.game_started.seed or e.game_started.seed_salt),
    "game_finished": lambda e, seat: bool(e.game_finished.seed or e.game_finished.seed_salt),
    "character_selected": lambda e, seat: e.character_selected.seat != seat and e.character_selected.rank != 0,
    "character_moved": lambda e, seat: (
        e.character_moved.seat != seat
        and (e.character_moved.from_place, e.character_moved.to_place) == (GRAVEYARD, HAND)
    ),
    "voyage_scored": lambda e, seat: (
        e.voyage_scored.hidden_scores and any(s.seat != seat for s in e.voyage_scored.scores)
    ),
}
_CLEAR: dict[str, Callable[[pb.LibertaliaEvent, int | None], None]] = {
    "game_started": lambda e, seat: _clear_seed(e.game_started),
    "game_finished": lambda e, seat: _clear_seed(e.game_finished),
    "character_selected": lambda e, seat: setattr(e.character_selected, "rank", 0),
    "character_moved": lambda e, seat: setattr(e.character_moved, "rank", 0),
    "voyage_scored": _clear_scores,
}
