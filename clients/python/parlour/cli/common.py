"""What the sub-commands share: a refused call as a sentence that says what to do about it."""

from __future__ import annotations

import sys

from parlour.client import ParlourError

__all__ = ["explain", "fail"]

#: For refusals a flag or an environment variable of the command line fixes: what to do.
_HINTS = {
    "auth/missing_api_key": "Give the API key the server's admin issued you with --api-key KEY or PARLOUR_API_KEY",
    "auth/bad_api_key": "The key given with --api-key (or PARLOUR_API_KEY) is not one this server knows: ask "
    "its admin for a new one (parlour admin create-key NAME)",
    "auth/missing_admin_key": "Give the server's admin key with --admin-key KEY or PARLOUR_ADMIN_KEY",
    "auth/bad_admin_key": "Give the key the server was started with (parlour serve --admin-key, or PARLOUR_ADMIN_KEY)",
}


def explain(error: ParlourError) -> str:
    """The server's sentence, and for a missing or wrong key which option gives it."""
    hint = _HINTS.get(error.reason)
    return f"{error}. {hint}." if hint else str(error)


def fail(command: str, error: ParlourError, status: int = 1) -> int:
    """Print ``<command>: <explained error>`` on stderr; returns ``status``."""
    print(f"{command}: {explain(error)}", file=sys.stderr)
    return status
