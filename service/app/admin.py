"""The admin key: what guards tournament administration."""

from __future__ import annotations

import hmac

from service.app.errors import ServiceError

__all__ = ["check_admin"]


def check_admin(given: str | None, configured: str) -> None:
    """Allow the call only with the server's admin key. Raises auth/missing_admin_key when none was sent
    and auth/bad_admin_key when it is wrong or the server has no admin key."""
    if not given:
        raise ServiceError("auth/missing_admin_key", "this call needs the admin key in `x-parlour-admin-key`")
    if not configured or not hmac.compare_digest(given.encode(), configured.encode()):
        raise ServiceError("auth/bad_admin_key", "the admin key is not this server's admin key")
