"""Who may see and do what: seat tokens checked against a game's record."""

from __future__ import annotations

import hmac

from service.app.errors import ServiceError
from service.app.records import GameRecord
from service.app.tokens import hash_token

__all__ = ["authorize_seat", "check_seat"]


def check_seat(record: GameRecord, seat: int) -> None:
    """Raise request/invalid for a negative seat (no game has one), seat/not_found unless ``seat`` is a
    seat of the game (which seats exist depends on the game, so that is not request/invalid)."""
    if seat < 0:
        raise ServiceError("request/invalid", f"seat {seat} does not exist: seats are numbered from 0")
    if seat >= record.config.seats:
        last = record.config.seats - 1
        raise ServiceError("seat/not_found", f"seat {seat} does not exist: this game has seats 0 to {last}")


def authorize_seat(record: GameRecord, seat: int | None, token: str | None, *, acting: bool) -> None:
    """Allow acting for ``seat``, or seeing as it, with ``token``.

    Spectators (``seat`` None) need no token. Seeing as a seat of a finished game needs none either when
    the game's policy makes everything public after the end. Otherwise the token must be the seat's own:
    no token is auth/missing_token, an unknown one auth/bad_token, another seat's auth/wrong_seat.
    """
    if seat is None:
        return
    check_seat(record, seat)
    if record.public and not acting:
        return
    if not token:
        raise ServiceError(
            "auth/missing_token",
            f"acting as seat {seat} needs its seat token: send 'authorization: Bearer <token>' from ClaimSeat",
        )
    hashed = hash_token(token)
    owner = next((s for s, claim in record.claims.items() if hmac.compare_digest(hashed, claim.token_hash)), None)
    if owner is None:
        raise ServiceError("auth/bad_token", "the seat token is not valid for this game; claim a seat to get one")
    if owner != seat:
        raise ServiceError("auth/wrong_seat", f"your token is for seat {owner}, not seat {seat}")
