"""The port of API keys: names and key hashes (see ``service.store.api_keys`` for Redis)."""

from __future__ import annotations

from typing import Protocol

__all__ = ["ApiKeyStore"]


class ApiKeyStore(Protocol):
    """API keys by name and by hash (only hashes of keys are kept)."""

    async def create(self, name: str, key_hash: str) -> bool:
        """Store a key under ``name``; False (nothing stored) when the name is taken by another key. The
        same name and hash again is True (a retry of a create whose reply was lost)."""
        ...

    async def revoke(self, name: str) -> bool:
        """Forget the key named ``name``; False when there is none."""
        ...

    async def name_of(self, key_hash: str) -> str | None:
        """The name of the key with this hash, or None."""
        ...

    async def names(self) -> list[str]:
        """Every key's name, sorted."""
        ...
