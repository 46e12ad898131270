"""Live fan-out: each event of a game is redacted and wrapped once per audience, not once per watcher.

An audience is what decides what a watcher may see: the seat (or a spectator) and whether the game's
hidden information was public when the watcher joined. Every watcher of one audience receives the very
same reply object, so a thousand spectators of a game cost one redaction per event (and, over REST, one
JSON encoding); the transports may rely on the identity of a reply to cache its encoding.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence

from parlour.v1 import game_service_pb2
from service.app.events import client_event, sent_whole
from service.app.records import GameRecord
from service.store.port import StoredEvent

__all__ = ["CommandsFirst", "Deliveries"]

_Key = tuple[str, int, int, int, bool]


class Deliveries:
    """A bounded cache of the replies watchers receive, by (game, version, audience)."""

    def __init__(self, capacity: int = 4096) -> None:
        """Keep the replies of the ``capacity`` most recently delivered (event, audience) pairs: enough for
        every audience of every game that is being watched live; an evicted one is simply built again."""
        self._capacity = capacity
        self._replies: OrderedDict[_Key, game_service_pb2.WatchGameResponse] = OrderedDict()

    def reply(self, record: GameRecord, stored: StoredEvent, seat: int | None) -> game_service_pb2.WatchGameResponse:
        """The reply carrying ``stored`` as ``seat`` (None: a spectator) sees it in the game ``record``
        describes. Shared with every watcher of the same audience: callers must not change it."""
        whole = sent_whole(record, stored)  # the after-the-end rule (the final event of a public game)
        key = (record.game_id, stored.version, 0, -1 if seat is None else seat, whole)
        reply = self._replies.get(key)
        if reply is None:
            event = client_event(record.game, stored, seat, finished=whole)
            reply = self._keep(key, game_service_pb2.WatchGameResponse(event=event, version=stored.version))
        return reply

    def command_reply(
        self, record: GameRecord, command: Sequence[StoredEvent], seat: int | None
    ) -> game_service_pb2.WatchGameResponse:
        """The reply carrying every event of ``command`` (consecutive events of one command) as ``seat`` sees
        them; shared like :meth:`reply`."""
        first, last = command[0], command[-1]
        whole = sent_whole(record, last)
        key = (record.game_id, first.version, last.version, -1 if seat is None else seat, whole)
        reply = self._replies.get(key)
        if reply is None:
            events = [client_event(record.game, e, seat, finished=sent_whole(record, e)) for e in command]
            reply = self._keep(key, game_service_pb2.WatchGameResponse(events=events, version=last.version))
        return reply

    def _keep(self, key: _Key, reply: game_service_pb2.WatchGameResponse) -> game_service_pb2.WatchGameResponse:
        self._replies[key] = reply
        if len(self._replies) > self._capacity:
            self._replies.popitem(last=False)
        return reply

    def __len__(self) -> int:
        return len(self._replies)


class CommandsFirst:
    """The live fan-out gives way to commands.

    One event loop serves both the commands and every watcher's stream; an event reaching thousands of
    watchers is thousands of stream writes. While a command is being applied, the fan-out waits (at most
    ``max_wait_s`` per slice of watchers) before it wakes more watchers, so a game's own pace does not
    fall when many watch it: the watchers' events arrive later instead. The same count tells the store's
    group commit whether other commands are under way (:meth:`several`), whose appends may join one's.
    """

    def __init__(self, max_wait_s: float = 0.05) -> None:
        self._max_wait_s = max_wait_s
        self._commands = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.contextmanager
    def command(self) -> Iterator[None]:
        """Mark a command as being applied while the block runs."""
        self._commands += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._commands -= 1
            if not self._commands:
                self._idle.set()

    def several(self) -> bool:
        """Whether more than one command is being applied (so the append of one may be joined by others')."""
        return self._commands > 1

    async def give_way(self) -> None:
        """Return once no command is being applied, or after ``max_wait_s``."""
        if self._commands:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._max_wait_s):
                    await self._idle.wait()
