"""API keys: created and revoked by the admin, sent by clients as ``x-parlour-api-key``.

With ``--require-api-key`` the calls that create something for a client (a game, a claimed seat, a new
bot name) need a valid key; a key that is sent is always checked. The name of the caller's verified key,
if any, is kept for the call in :data:`CALLER_KEY` (set by the transports' gate), where the bot use cases
read it.
"""

from __future__ import annotations

import contextvars

from service.app.errors import ServiceError
from service.app.sizes import SizeLimits
from service.app.tokens import hash_token, new_token
from service.store.api_key_port import ApiKeyStore

__all__ = ["CALLER_KEY", "KEYED_CALLS", "ApiKeys"]

#: The name of the current call's verified API key ("" when it sent none).
CALLER_KEY: contextvars.ContextVar[str] = contextvars.ContextVar("parlour_api_key", default="")

#: The calls that need a key when keys are required.
KEYED_CALLS = frozenset({"GameService.CreateGame", "GameService.ClaimSeat", "ReplayService.ImportGame"})


class ApiKeys:
    """The API key use cases over the key store."""

    def __init__(self, store: ApiKeyStore, *, required: bool = False, sizes: SizeLimits | None = None) -> None:
        """``sizes`` bounds the length of a key's name."""
        self._store = store
        self.required = required
        self._sizes = sizes or SizeLimits()

    async def create(self, name: str) -> str:
        """A new key named ``name`` (returned once). Raises request/invalid for a bad name, api_key/taken for
        a name in use."""
        self._sizes.check_api_key_name(name)
        key = "pk_" + new_token()
        if not await self._store.create(name, hash_token(key)):
            raise ServiceError("api_key/taken", f"there is already an API key named {name!r}; revoke it first")
        return key

    async def revoke(self, name: str) -> None:
        """Revoke the key named ``name``; api_key/not_found when there is none."""
        if not await self._store.revoke(name):
            raise ServiceError("api_key/not_found", "there is no API key of that name; ListApiKeys shows them")

    async def names(self) -> list[str]:
        """The keys' names."""
        return await self._store.names()

    async def identify(self, key: str) -> str:
        """The name of ``key`` ("" for no key); raises auth/bad_api_key for a key that is not one."""
        if not key:
            return ""
        if len(key) > 256 or (name := await self._store.name_of(hash_token(key))) is None:
            raise ServiceError("auth/bad_api_key", "the API key is not valid here (revoked, or never issued)")
        return name

    def check_call(self, call: str, name: str) -> None:
        """Raise auth/missing_api_key when ``call`` needs a key and the caller has none."""
        if self.required and not name and call in KEYED_CALLS:
            raise ServiceError(
                "auth/missing_api_key",
                "this server needs an API key for this call: send it as x-parlour-api-key (the admin issues keys)",
            )

    def check_new_bot_name(self, name: str) -> None:
        """Raise auth/missing_api_key when registering the new bot ``name`` needs a key the caller lacks."""
        if self.required and not CALLER_KEY.get():
            raise ServiceError(
                "auth/missing_api_key",
                f"registering the new bot name {name!r} needs an API key on this server (x-parlour-api-key)",
            )
