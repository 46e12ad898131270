"""What a seat or a spectator of Old Men of the Forest may see: the view of a state and redacted events."""

from __future__ import annotations

from engines.oldmen.data import DECK
from engines.oldmen.state import Phase, State
from parlour.v1 import oldmen_pb2 as pb

__all__ = ["redact", "view"]

_PHASES = {
    Phase.PLAY: pb.OLDMEN_PHASE_PLAY,
    Phase.TAKE: pb.OLDMEN_PHASE_TAKE,
    Phase.SAVE: pb.OLDMEN_PHASE_SAVE,
    Phase.SCORING: pb.OLDMEN_PHASE_PLAY,
    Phase.OVER: pb.OLDMEN_PHASE_OVER,
}


def view(state: State, seat: int | None, *, reveal: bool = False) -> pb.OldmenView:
    """The board as ``seat`` sees it: its own hand, everyone's public cards; never the orangutan deck
    order, other hands or the undealt cards, even once the game is over. With ``reveal`` (a finished game
    whose policy makes everything public) every hand is shown to all."""
    result = pb.OldmenView(
        phase=_PHASES[state.phase],
        deal=state.deal,
        match_deals=state.match_deals,
        round=state.round,
        leader=state.leader,
        first_winner=state.first,
        second_winner=state.second,
        deck_count=len(state.deck),
        undealt_count=len(DECK) - state.rules.hand_size * state.seats,
        discard=[c.to_pb() for c in state.discard],
        orangutans=[o.to_pb() for o in state.rules.orangutans],
    )
    for s, player in enumerate(state.players):
        seat_view = result.seats.add(
            seat=s,
            hand_count=len(player.hand),
            pool=[c.to_pb() for c in player.pool],
            score=player.score(state.rules),
            match_score=player.match_score,
        )
        if s == seat or reveal:
            seat_view.hand.extend(c.to_pb() for c in sorted(player.hand))
        for saved in player.saved:
            seat_view.saved.add(
                orangutan_id=saved.orangutan.id, vp=saved.orangutan.vp, tucked=[c.to_pb() for c in saved.tucked]
            )
    for s, card in state.trick:
        result.trick.add(seat=s, card=card.to_pb(), taken=s in state.taken)
    for orangutan_id in state.row:
        orangutan = state.orangutan(orangutan_id)
        assert orangutan is not None
        result.row.append(orangutan.to_pb())
    return result


def redact(event: pb.OldmenEvent, seat: int | None, *, finished: bool = False) -> pb.OldmenEvent:
    """``event`` as ``seat`` may see it: other seats' hands, the orangutan deck order, the seed and its
    salt (in the first and the final event) are removed. ``finished`` (a finished game whose policy makes
    everything public): the event is returned whole."""
    kind = event.WhichOneof("kind")
    if finished:
        return event
    if kind == "hand_dealt" and event.hand_dealt.seat != seat:
        copy = pb.OldmenEvent()
        copy.CopyFrom(event)
        del copy.hand_dealt.cards[:]
        return copy
    if kind == "orangutan_deck_shuffled":
        shuffled = pb.OldmenOrangutanDeckShuffled(count=event.orangutan_deck_shuffled.count)
        return pb.OldmenEvent(orangutan_deck_shuffled=shuffled)
    if kind in ("game_started", "match_finished"):
        copy = pb.OldmenEvent()
        copy.CopyFrom(event)
        getattr(copy, kind).ClearField("seed")
        getattr(copy, kind).ClearField("seed_salt")
        return copy
    return event
