"""What every call passes before its use case runs, over any transport: the caller's API key is checked
(and required where the server requires one), then the caller's quotas are applied under its key or, with
no key, its address."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from service.app.api_keys import CALLER_KEY, ApiKeys
from service.app.limits import Client, Limits

__all__ = ["Gate"]


class Gate:
    """API keys (optional) and quotas, for transports to enter around each call."""

    def __init__(self, limits: Limits, keys: ApiKeys | None = None) -> None:
        self.limits = limits
        self._keys = keys

    async def admit(self, call: str, client: Client) -> None:
        """Admit one call that holds nothing while it runs (not a stream): what :meth:`enter` checks,
        without a block. Raises auth/bad_api_key, auth/missing_api_key or limit/rate."""
        name = ""
        if self._keys is not None:
            name = await self._keys.identify(client.api_key)
            self._keys.check_call(call, name)
        CALLER_KEY.set(name)  # each call runs in a task of its own
        await self.limits.admit(call, Client(client.address, name))

    @asynccontextmanager
    async def enter(self, call: str, client: Client) -> AsyncIterator[None]:
        """Admit ``call`` ("GameService.CreateGame") by ``client`` (its ``api_key`` as sent) for the block's
        duration. Raises auth/bad_api_key, auth/missing_api_key, limit/rate or limit/streams."""
        name = ""
        if self._keys is not None:
            name = await self._keys.identify(client.api_key)
            self._keys.check_call(call, name)
        CALLER_KEY.set(name)  # each call runs in a task of its own
        async with self.limits.enter(call, Client(client.address, name)):
            yield
