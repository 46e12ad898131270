"""Redis key names. A game's keys share the hash tag ``{g:<id>}`` so they live in one Cluster slot; so do a
tournament's (under their own prefix, see :meth:`Keys.tournament_logs`), a bot's (``{b:<name>}``) and the
two hashes of API keys (``{apikeys}``)."""

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

    def ticket(self, game_id: str, ticket_hash: str) -> str:
        """A stream ticket of the game (value: its seat; expires by itself), by the ticket's hash."""
        return f"{self.prefix}:{{g:{game_id}}}:ticket:{ticket_hash}"

    def clock(self, game_id: str) -> str:
        """The game's clock (hash: time control, per-seat bank, timeouts, dropped flag, clock start)."""
        return f"{self.prefix}:{{g:{game_id}}}:clock"

    def deadlines(self) -> str:
        """A sorted set of ``<game>|<seat>|<version>`` by due time (ms) of every running clock. Not per game:
        one key (one Cluster slot) on purpose, since every server process polls it for the earliest deadlines
        of all games and claims them in one script; each turn of a clocked game adds one member per pending
        seat (removed once it came due and was dealt with), so this slot's node carries every clocked turn."""
        return f"{self.prefix}:clocks:due"

    def clocked_games(self) -> str:
        """A set of the ids of clocked games that are not known to be over (the clocks' sweep checks them).
        Not per game: one key (one Cluster slot) on purpose, read whole by each process's sweep; a game is
        added when its clock is made and removed when it ends."""
        return f"{self.prefix}:clocks:games"

    def bot(self, name: str) -> str:
        """A bot's identity (hash: key hash)."""
        return f"{self.prefix}:{{b:{name}}}:bot"

    def assignments(self, name: str) -> str:
        """A bot's seat assignments, a stream of entries in the order they were made."""
        return f"{self.prefix}:{{b:{name}}}:assigned"

    def bot_presence(self, name: str) -> str:
        """Which session of a bot is connected now (a key with an expiry, renewed while it is)."""
        return f"{self.prefix}:{{b:{name}}}:present"

    def assigned_seats(self, name: str) -> str:
        """The ``<game>:<seat>`` members of a bot's assignments, so a seat is given to a bot at most once."""
        return f"{self.prefix}:{{b:{name}}}:seats"

    def api_keys_by_name(self) -> str:
        """The API keys by name (hash: name -> key hash). Not per key: it and :meth:`api_keys_by_hash` share
        the hash tag ``{apikeys}`` on purpose, so one Cluster slot holds both and one script writes both when
        a key is made or revoked; only the admin writes them, and a call that sends a key reads one field."""
        return f"{self.prefix}:{{apikeys}}:by_name"

    def api_keys_by_hash(self) -> str:
        """The API keys by key hash (hash: key hash -> name), in the slot of :meth:`api_keys_by_name`."""
        return f"{self.prefix}:{{apikeys}}:by_hash"

    def old_api_keys(self) -> tuple[str, str]:
        """The names the API keys had before they shared a hash tag (by name, by hash; two slots, so they
        only ever worked on a single Redis): never written now, only emptied into the new ones."""
        return f"{self.prefix}:apikeys:by_name", f"{self.prefix}:apikeys:by_hash"

    def tournament_logs(self) -> Keys:
        """The key names of tournament logs: a game log's names (the stream ``log``, the hash ``meta`` with
        the version and the tournament's secret, the hash ``cmds`` of event ids) under the prefix
        ``<prefix>:tournament``, so the game store's code keeps them as it keeps games. A tournament's keys
        are ``<prefix>:tournament:{g:<id>}:...`` with the tournament's id: they share that hash tag."""
        return Keys(f"{self.prefix}:tournament")

    def tournament_lease(self, tournament_id: str) -> str:
        """Which server process runs a tournament's scheduler now (a key with an expiry), under the hash tag
        of the tournament's log keys (see :meth:`tournament_logs`)."""
        return f"{self.prefix}:tournament:{{g:{tournament_id}}}:lease"

    def tournaments(self) -> str:
        """A sorted set of every tournament id by creation time (ms). Not per tournament: one key (one
        Cluster slot) on purpose, written once per tournament and read in one order."""
        return f"{self.prefix}:tournaments"

    def index(self, name: str) -> str:
        """A sorted set of game ids by creation time: ``all``, ``status:<s>``, ``game:<name>``,
        ``game:<name>:status:<s>``."""
        return f"{self.prefix}:games:{name}"
