"""Seat tokens: random secrets handed out once; only their SHA-256 hashes are stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["hash_token", "new_token", "token_matches"]


def new_token() -> str:
    """A fresh 256-bit token, URL-safe text."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a token (hex SHA-256)."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Whether ``token`` hashes to ``stored_hash`` (constant-time comparison)."""
    return hmac.compare_digest(hash_token(token), stored_hash)
