"""Redis key names. A game's keys share the hash tag ``{g:<id>}`` so they live in one Cluster slot."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Keys"]


@dataclass(frozen=True)
class Keys:
    """Key names under a prefix (default ``parlour``), so several deployments can share one Redis."""

    prefix: str = "parlour"

    def log(self, game_id: str) -> str:
        """The game's event stream; entry ids are ``<version>-0``."""
        return f"{self.prefix}:{{g:{game_id}}}:log"

    def meta(self, game_id: str) -> str:
        """The game's metadata hash (version, status, options, seat token hashes...)."""
        return f"{self.prefix}:{{g:{game_id}}}:meta"

    def commands(self, game_id: str) -> str:
        """Command id -> ``digest:first:last`` for idempotent retries."""
        return f"{self.prefix}:{{g:{game_id}}}:cmds"

    def snapshot(self, game_id: str) -> str:
        """The latest state snapshot (hash: version, tag, blob)."""
        return f"{self.prefix}:{{g:{game_id}}}:snap"

    def index(self, name: str) -> str:
        """A sorted set of game ids by creation time: ``all``, ``status:<s>``, ``game:<name>``."""
        return f"{self.prefix}:games:{name}"
