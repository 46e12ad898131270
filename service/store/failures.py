"""Which store failures mean "the store is not reachable now" (the call may be retried), as opposed to bugs.

The application maps these to one UNAVAILABLE error with a fixed sentence; the store client's own messages
(addresses, socket paths, key names) never reach a client. This module names no client library: the
adapter that opens the store registers its client's error types with :func:`treat_as_unavailable`.
"""

from __future__ import annotations

from service.store.port import StoreError

__all__ = ["StoreUnavailableError", "is_unavailable", "treat_as_unavailable"]


class StoreUnavailableError(StoreError):
    """The store cannot do the call now (Redis away, failing over, or replicas not acknowledging in time);
    the same call, with the same command id, may be retried. Its message, when it has one, is a sentence
    for the client; without one the client gets the standard sentence."""


_UNAVAILABLE: set[type[BaseException]] = {StoreUnavailableError, ConnectionRefusedError, ConnectionResetError}


def treat_as_unavailable(*kinds: type[BaseException]) -> None:
    """Count errors of ``kinds`` (and their subclasses) as the store being unreachable."""
    _UNAVAILABLE.update(kinds)


def is_unavailable(error: BaseException) -> bool:
    """True when ``error`` says the store is not reachable now (retrying later may succeed)."""
    return isinstance(error, tuple(_UNAVAILABLE))
