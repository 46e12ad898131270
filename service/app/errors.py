"""Service errors and the one table that maps them to gRPC status codes and HTTP statuses.

The table is documented for clients in ``proto/parlour/v1/errors.proto``; a test keeps the two equal.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from engines.errors import (
    ConfigError,
    GameError,
    GameOverError,
    IllegalCommandError,
    MalformedCommandError,
    NotYourTurnError,
)
from service.store.failures import StoreUnavailableError, is_unavailable

__all__ = [
    "ERRORS",
    "MAX_MESSAGE",
    "SERVER_FAILED",
    "STORE_UNAVAILABLE",
    "ErrorKind",
    "ServiceError",
    "from_failure",
    "from_game_error",
    "loggable",
    "quoted",
]

#: The longest sentence an error carries (longer ones are cut), so that no request can make the server
#: echo more than this into a status message or a response (a client's metadata limit is 8 to 16 KiB).
MAX_MESSAGE = 600


def quoted(text: str, limit: int = 40) -> str:
    """``text`` quoted for a sentence, cut to ``limit`` characters (marked with an ellipsis)."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


@dataclass(frozen=True)
class ErrorKind:
    """How one reason travels: gRPC code and HTTP status."""

    grpc_code: grpc.StatusCode
    http_status: int


ERRORS: dict[str, ErrorKind] = {
    "request/invalid": ErrorKind(grpc.StatusCode.INVALID_ARGUMENT, 400),
    "request/too_large": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 413),
    "request/uri_too_long": ErrorKind(grpc.StatusCode.INVALID_ARGUMENT, 414),
    "request/headers_too_large": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 431),
    "game/unknown_type": ErrorKind(grpc.StatusCode.INVALID_ARGUMENT, 400),
    "game/bad_config": ErrorKind(grpc.StatusCode.INVALID_ARGUMENT, 400),
    "game/not_found": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "game/over": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "game/stale_version": ErrorKind(grpc.StatusCode.ABORTED, 409),
    "game/not_over": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "game/hidden": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "game/rules_unavailable": ErrorKind(grpc.StatusCode.UNAVAILABLE, 503),
    "rules/not_found": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "replay/not_verified": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "seat/taken": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "seat/none_free": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "seat/not_found": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "seat/not_claimed": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "api_key/not_found": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "api_key/taken": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "version/not_found": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "command/malformed": ErrorKind(grpc.StatusCode.INVALID_ARGUMENT, 400),
    "command/illegal": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "command/not_your_turn": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "command/id_reused": ErrorKind(grpc.StatusCode.INVALID_ARGUMENT, 400),
    "auth/missing_token": ErrorKind(grpc.StatusCode.UNAUTHENTICATED, 401),
    "auth/bad_token": ErrorKind(grpc.StatusCode.UNAUTHENTICATED, 401),
    "auth/wrong_seat": ErrorKind(grpc.StatusCode.PERMISSION_DENIED, 403),
    "auth/missing_admin_key": ErrorKind(grpc.StatusCode.UNAUTHENTICATED, 401),
    "auth/bad_admin_key": ErrorKind(grpc.StatusCode.PERMISSION_DENIED, 403),
    "auth/bad_bot_key": ErrorKind(grpc.StatusCode.PERMISSION_DENIED, 403),
    "auth/bad_ticket": ErrorKind(grpc.StatusCode.UNAUTHENTICATED, 401),
    "tournament/not_found": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "tournament/bad_config": ErrorKind(grpc.StatusCode.INVALID_ARGUMENT, 400),
    "tournament/started": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "tournament/too_few_bots": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "tournament/full": ErrorKind(grpc.StatusCode.FAILED_PRECONDITION, 409),
    "bot/unknown": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "http/not_found": ErrorKind(grpc.StatusCode.NOT_FOUND, 404),
    "http/method_not_allowed": ErrorKind(grpc.StatusCode.UNIMPLEMENTED, 405),
    "server/internal": ErrorKind(grpc.StatusCode.INTERNAL, 500),
    "auth/missing_api_key": ErrorKind(grpc.StatusCode.UNAUTHENTICATED, 401),
    "auth/bad_api_key": ErrorKind(grpc.StatusCode.UNAUTHENTICATED, 401),
    "limit/rate": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "limit/streams": ErrorKind(grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "store/unavailable": ErrorKind(grpc.StatusCode.UNAVAILABLE, 503),
}


class ServiceError(Exception):
    """A failed request: a reason from :data:`ERRORS` and one sentence for the person who sent it."""

    def __init__(self, reason: str, message: str) -> None:
        if reason not in ERRORS:
            raise ValueError(f"unknown error reason {reason!r}")
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 1] + "…"
        super().__init__(message)
        self.reason = reason
        self.message = message

    @property
    def kind(self) -> ErrorKind:
        """Status code and HTTP status for this error."""
        return ERRORS[self.reason]


_GAME_ERRORS: tuple[tuple[type[GameError], str], ...] = (
    (GameOverError, "game/over"),
    (NotYourTurnError, "command/not_your_turn"),
    (MalformedCommandError, "command/malformed"),
    (IllegalCommandError, "command/illegal"),
    (ConfigError, "game/bad_config"),
)


def from_game_error(error: GameError) -> ServiceError:
    """The service error for an engine's rule error, keeping the engine's sentence."""
    reason = next((r for cls, r in _GAME_ERRORS if isinstance(error, cls)), "command/illegal")
    return ServiceError(reason, str(error))


def loggable(error: BaseException) -> str:
    """What a log line may say about ``error``: its type and, for service and rule errors, the reason or
    class, never the sentence (a rule error speaks from the actor's view and may name its hidden cards)."""
    if isinstance(error, ServiceError):
        return f"ServiceError({error.reason})"
    return type(error).__name__


#: The sentence of every call that failed because the game store could not be reached.
STORE_UNAVAILABLE = "the game store is not reachable; retry"
#: The sentence of ``server/internal``: a bug's own message (paths, internals) never reaches a client.
SERVER_FAILED = "the server failed; the error is in its log"


def from_failure(error: BaseException) -> ServiceError | None:
    """The service error for an unexpected failure, or None when it is not one the table knows: Redis away
    (or replicas not acknowledging) becomes ``store/unavailable``, never with Redis's own message (it
    names addresses and keys). A StoreUnavailableError keeps its own sentence."""
    if not is_unavailable(error):
        return None
    if isinstance(error, StoreUnavailableError) and str(error):
        return ServiceError("store/unavailable", str(error))
    return ServiceError("store/unavailable", STORE_UNAVAILABLE)
