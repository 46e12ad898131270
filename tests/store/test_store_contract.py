"""The event store contract: every adapter of the EventStore port must pass these tests.

They run against the embedded Redis always, and against REDIS_URL too when it is set.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from service.store.keys import Keys
from service.store.port import (
    AppendResult,
    CommandIdReusedError,
    EventStore,
    MetaClaim,
    NewCommand,
    NewEvent,
    StoredEvent,
    StoreError,
    VersionConflictError,
)
from tests.store.adapters import event_store

_clock = itertools.count(1_000_000)


@pytest.fixture
async def store(redis_client: aioredis.Redis, key_prefix: str) -> AsyncIterator[EventStore]:
    """Each adapter of the port in turn (see tests/store/adapters.py)."""
    adapter = event_store(redis_client, key_prefix, clock_ms=lambda: next(_clock))
    yield adapter
    await adapter.close()


def events(*payloads: bytes) -> list[NewEvent]:
    return [NewEvent(p) for p in payloads]


async def append(
    store: EventStore, game: str, version: int, *payloads: bytes, command_id: str = "", final: bool = False
) -> AppendResult:
    """Append ``payloads`` as one command (a fresh command id unless given)."""
    return await store.append(
        game,
        NewCommand(
            events(*payloads),
            expected_version=version,
            command_id=command_id or uuid.uuid4().hex,
            digest="d",
            seat=0,
            final=final,
        ),
    )


async def collect(stream: AsyncIterator[StoredEvent], count: int) -> list[StoredEvent]:
    out = []
    async for event in stream:
        out.append(event)
        if len(out) == count:
            break
    return out


async def test_create_stores_setup_events_in_order(store: EventStore) -> None:
    """A new game's setup events are versions 1..n, in order, with its metadata."""
    await store.create("g1", {"game": "oldmen", "status": "running"}, events(b"a", b"b", b"c"))
    read = await store.read("g1", 1, 10)
    assert [(e.version, e.data) for e in read] == [(1, b"a"), (2, b"b"), (3, b"c")]
    meta = await store.meta("g1")
    assert meta is not None and meta["version"] == "3" and meta["game"] == "oldmen"
    assert await store.version("g1") == 3


async def test_create_returns_the_metadata_as_stored(store: EventStore) -> None:
    """What create returns is what a read of the metadata gives just after (so no read is needed)."""
    stored = await store.create("g1", {"game": "oldmen", "status": "running", "seats": "4"}, events(b"a", b"b"))
    assert stored == await store.meta("g1")
    assert stored["version"] == "2" and stored["seats"] == "4"


async def test_create_refuses_an_existing_id(store: EventStore) -> None:
    """Two games never share an id."""
    await store.create("g1", {"status": "running"}, events(b"a"))
    with pytest.raises(StoreError):
        await store.create("g1", {"status": "running"}, events(b"b"))


async def test_append_records_command_seat_and_time(store: EventStore) -> None:
    """Each event keeps the command id, the seat and the command body (on its first event)."""
    await store.create("g1", {}, events(b"a"))
    result = await store.append(
        "g1",
        NewCommand(events(b"x", b"y"), expected_version=1, command_id="cmd-1", digest="d", seat=2, command=b"body"),
    )
    assert (result.first, result.last, result.duplicate) == (2, 3, False)
    x, y = await store.read("g1", 2, 10)
    assert (x.command_id, x.seat, x.command) == ("cmd-1", 2, b"body")
    assert (y.command_id, y.seat, y.command) == ("cmd-1", 2, b"")
    assert x.recorded_at_ms > 0


async def test_an_append_can_keep_a_given_time_think_time_and_timeout(store: EventStore) -> None:
    """An import keeps what its export recorded: time, think time and the timeout flag, on every event."""
    await store.create("g1", {}, events(b"a"))
    await store.append(
        "g1",
        NewCommand(
            events(b"x", b"y"),
            expected_version=1,
            command_id="cmd-1",
            digest="d",
            seat=0,
            recorded_at_ms=123_456,
            timed_out=True,
            think_ms=4_321,
        ),
    )
    read = await store.read("g1", 2, 10)
    assert [(e.recorded_at_ms, e.think_ms, e.timed_out) for e in read] == [(123_456, 4_321, True)] * 2


async def test_stale_expected_version_appends_nothing(store: EventStore) -> None:
    """An append decided on an old version is refused and the log is unchanged."""
    await store.create("g1", {}, events(b"a"))
    await append(store, "g1", 1, b"b")
    with pytest.raises(VersionConflictError) as conflict:
        await append(store, "g1", 1, b"late")
    assert conflict.value.current == 2
    assert [e.data for e in await store.read("g1", 1, 10)] == [b"a", b"b"]


async def test_two_concurrent_appends_exactly_one_wins(store: EventStore) -> None:
    """Two writers racing from the same version: one appends, the other gets a conflict; no fork."""
    await store.create("g1", {}, events(b"a"))
    for round_number in range(20):
        version = 1 + round_number
        results = await asyncio.gather(
            append(store, "g1", version, b"left", command_id=f"l{round_number}"),
            append(store, "g1", version, b"right", command_id=f"r{round_number}"),
            return_exceptions=True,
        )
        assert sum(isinstance(r, VersionConflictError) for r in results) == 1
    log = await store.read("g1", 1, 100)
    assert [e.version for e in log] == list(range(1, 22))


async def test_retry_with_the_same_command_id_appends_nothing_twice(store: EventStore) -> None:
    """A retried command (same id, same digest) returns its first result, even from a stale version."""
    await store.create("g1", {}, events(b"a"))
    first = await append(store, "g1", 1, b"x", b"y", command_id="same")
    retry = await append(store, "g1", 1, b"x", b"y", command_id="same")
    assert (retry.first, retry.last, retry.duplicate) == (first.first, first.last, True)
    assert await store.version("g1") == 3
    assert await store.find_command("g1", "same") == ("d", 2, 3)


async def test_a_command_id_reused_for_another_command_is_refused(store: EventStore) -> None:
    """The same id with a different digest is an error and appends nothing."""
    await store.create("g1", {}, events(b"a"))
    await append(store, "g1", 1, b"x", command_id="same")
    with pytest.raises(CommandIdReusedError):
        await store.append(
            "g1", NewCommand(events(b"z"), expected_version=2, command_id="same", digest="other", seat=0)
        )
    assert await store.version("g1") == 2


async def test_read_from_a_version_pages_in_order(store: EventStore) -> None:
    """Reading from version N returns N, N+1, ... up to the limit."""
    await store.create("g1", {}, events(*[bytes([i]) for i in range(10)]))
    assert [e.version for e in await store.read("g1", 4, 3)] == [4, 5, 6]
    assert [e.version for e in await store.read("g1", 9, 100)] == [9, 10]
    assert await store.read("g1", 11, 100) == []
    assert await store.read("missing", 1, 10) == []


async def test_tail_gives_history_then_live_events(store: EventStore) -> None:
    """A tail from version 2 sees the stored events from 2 on, then each new one as it is appended."""
    await store.create("g1", {}, events(b"a", b"b", b"c"))
    tail = store.tail("g1", 2)
    history = await asyncio.wait_for(collect(tail, 2), 5)  # the stored events have come: the tail is live
    await append(store, "g1", 3, b"d")
    await append(store, "g1", 4, b"e")
    await append(store, "g1", 5, b"f")
    seen = history + await asyncio.wait_for(collect(tail, 3), 5)
    assert [(e.version, e.data) for e in seen] == [(2, b"b"), (3, b"c"), (4, b"d"), (5, b"e"), (6, b"f")]


async def test_many_watchers_share_one_reader_and_see_every_event_once(store: EventStore) -> None:
    """Watchers joining at different times all see versions 1..n exactly once, in order."""
    await store.create("g1", {}, events(b"0"))
    total = 120
    midway = asyncio.Event()

    async def writer() -> None:
        version = 1
        for i in range(total - 1):
            if i == total // 3:
                midway.set()
            final = i == total - 2
            await store.append(
                "g1",
                NewCommand(events(b"x"), expected_version=version, command_id=f"w{i}", digest="d", seat=0, final=final),
            )
            version += 1
            if i % 7 == 0:
                await asyncio.sleep(0.002)

    async def watch() -> list[int]:
        return [e.version async for e in store.tail("g1", 1)]

    early = [asyncio.create_task(watch()) for _ in range(3)]
    writing = asyncio.create_task(writer())
    await asyncio.wait_for(midway.wait(), 20)  # a third of the game is written: the others join now
    late = [asyncio.create_task(watch()) for _ in range(3)]
    results = await asyncio.wait_for(asyncio.gather(writing, *early, *late), 20)
    for versions in results[1:]:
        assert versions == list(range(1, total + 1))


async def test_resume_after_a_dropped_watcher_has_no_gap_and_no_duplicate(store: EventStore) -> None:
    """A watcher cut off mid-game resumes from its last version + 1 and sees the rest exactly once."""
    await store.create("g1", {}, events(b"0"))
    for version in range(1, 30):
        await append(store, "g1", version, b"x")
    first = await collect(store.tail("g1", 1), 12)
    for version in range(30, 40):
        await append(store, "g1", version, b"y")
    await append(store, "g1", 40, b"end", final=True)
    rest = [e async for e in store.tail("g1", first[-1].version + 1)]
    assert [e.version for e in first + rest] == list(range(1, 42))


async def test_a_tail_ends_after_the_final_event(store: EventStore) -> None:
    """Watching a finished game returns its whole log and stops."""
    await store.create("g1", {}, events(b"a"))
    await append(store, "g1", 1, b"end", final=True)
    assert [e.version async for e in store.tail("g1", 1)] == [1, 2]


async def test_snapshots_are_found_by_version(store: EventStore) -> None:
    """The newest snapshot is loaded by default, and the newest at or before a version on request."""
    assert await store.load_snapshot("g1") is None
    await store.save_snapshot("g1", 100, "tag", b"state-100")
    await store.save_snapshot("g1", 50, "tag", b"state\n50")
    assert await store.load_snapshot("g1") == (100, "tag", b"state-100")
    assert await store.load_snapshot("g1", at_most=99) == (50, "tag", b"state\n50")
    assert await store.load_snapshot("g1", at_most=49) is None
    await store.save_snapshot("g1", 200, "tag2", b"state-200")
    assert await store.load_snapshot("g1") == (200, "tag2", b"state-200")
    assert await store.load_snapshot("g1", at_most=150) == (100, "tag", b"state-100")


async def test_index_lists_games_newest_first_by_game_and_status(store: EventStore) -> None:
    """Games are listed newest first, filtered by game and by status, page by page."""
    for i, name in enumerate(["oldmen", "verraeter", "oldmen", "oldmen"]):
        await store.create(f"g{i}", {"game": name, "status": "running"}, events(b"a"))
    await store.append(
        "g2",
        NewCommand(events(b"end"), expected_version=1, command_id="x", digest="d", seat=0, meta={"status": "finished"}),
    )
    everything = await store.list_games(game="", status="", limit=10, cursor="")
    assert [g["game_id"] for g in everything.games] == ["g3", "g2", "g1", "g0"]
    oldmen = await store.list_games(game="oldmen", status="", limit=2, cursor="")
    assert [g["game_id"] for g in oldmen.games] == ["g3", "g2"] and oldmen.next_cursor
    rest = await store.list_games(game="oldmen", status="", limit=2, cursor=oldmen.next_cursor)
    assert [g["game_id"] for g in rest.games] == ["g0"] and rest.next_cursor == ""
    finished = await store.list_games(game="", status="finished", limit=10, cursor="")
    assert [g["game_id"] for g in finished.games] == ["g2"]
    running_oldmen = await store.list_games(game="oldmen", status="running", limit=10, cursor="")
    assert [g["game_id"] for g in running_oldmen.games] == ["g3", "g0"]
    assert (await store.count_games("running"), await store.count_games("finished")) == (3, 1)


async def test_set_meta_if_absent_claims_once(store: EventStore) -> None:
    """Only the first of two claims of the same field succeeds."""
    await store.create("g1", {}, events(b"a"))
    results = await asyncio.gather(
        store.set_meta_if_absent("g1", "seat:0", "alice"), store.set_meta_if_absent("g1", "seat:0", "bob")
    )
    assert sorted(results) == [False, True]


async def test_set_meta_if_absent_never_creates_a_game(store: EventStore) -> None:
    """A claim on a game that does not exist, or was deleted, sets nothing and leaves no metadata."""
    assert not await store.set_meta_if_absent("nosuch", "seat:0", "alice")
    await store.create("g1", {"game": "oldmen", "status": "running"}, events(b"a"))
    await store.delete("g1")
    assert not await store.set_meta_if_absent("g1", "seat:0", "alice")
    assert await store.meta("nosuch") is None and await store.meta("g1") is None


async def test_claim_meta_sets_once_and_returns_the_metadata_after(store: EventStore) -> None:
    """Of two claims of one field the first sets it; both get the metadata as it is after their step."""
    await store.create("g1", {"status": "running"}, events(b"a"))
    first = await store.claim_meta("g1", "seat:0", "alice", unless=("status", "finished"))
    second = await store.claim_meta("g1", "seat:0", "bob", unless=("status", "finished"))
    assert (first.claimed, second.claimed) == (True, False)
    assert first.meta == second.meta == await store.meta("g1")
    assert first.meta is not None and first.meta["seat:0"] == "alice"


async def test_claim_meta_sets_nothing_when_the_guard_holds_or_the_game_is_gone(store: EventStore) -> None:
    """A field is not set while ``unless`` holds (a finished game's seat), nor on a game that does not
    exist (nothing is created)."""
    await store.create("g1", {"status": "finished"}, events(b"a"))
    refused = await store.claim_meta("g1", "seat:0", "alice", unless=("status", "finished"))
    assert not refused.claimed and refused.meta is not None and "seat:0" not in refused.meta
    assert await store.claim_meta("nosuch", "seat:0", "alice", unless=("status", "finished")) == MetaClaim(False, None)
    assert await store.meta("nosuch") is None


async def test_replace_meta_overwrites_only_a_field_that_exists(store: EventStore) -> None:
    """A field is overwritten; a missing field (or game) is not created."""
    await store.create("g1", {}, events(b"a"))
    assert await store.set_meta_if_absent("g1", "seat:0", "alice")
    assert await store.replace_meta("g1", "seat:0", "revoked")
    assert not await store.replace_meta("g1", "seat:1", "bob")
    assert not await store.replace_meta("nosuch", "seat:0", "bob")
    meta = await store.meta("g1")
    assert meta is not None and meta["seat:0"] == "revoked" and "seat:1" not in meta
    assert await store.meta("nosuch") is None


async def test_a_deleted_game_is_gone_from_the_log_the_metadata_and_every_index(store: EventStore) -> None:
    """After delete nothing of the game is read or listed; the other games stay; deleting again is a no-op."""
    await store.create("g1", {"game": "oldmen", "status": "running"}, events(b"a", b"b"))
    await store.create("g2", {"game": "oldmen", "status": "running"}, events(b"c"))
    await store.delete("g1")
    await store.delete("g1")
    assert await store.meta("g1") is None and await store.read("g1", 1, 10) == []
    for game, status in (("", ""), ("oldmen", ""), ("", "running"), ("oldmen", "running")):
        page = await store.list_games(game=game, status=status, limit=10, cursor="")
        assert [g["game_id"] for g in page.games] == ["g2"]


async def test_keys_of_a_game_share_one_cluster_slot(store: EventStore, key_prefix: str) -> None:
    """Every key of a game carries the same hash tag, so a Redis Cluster keeps them in one slot."""
    keys = Keys(key_prefix)
    tagged = [keys.log("abc"), keys.meta("abc"), keys.commands("abc"), keys.snapshot("abc")]
    assert all("{g:abc}" in k for k in tagged)


class _Stopping:
    """A client that works until ``stop`` is set; then its pipelines (the index writes after an append)
    fail, as if the process had stopped between the atomic append and the index change."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self.stop = False

    def __getattr__(self, name: str) -> object:
        return getattr(self._client, name)

    def pipeline(self, transaction: bool = True) -> object:
        if self.stop:
            raise ConnectionError("the process stopped here")
        return self._client.pipeline(transaction=transaction)


async def test_a_stop_between_the_append_and_the_index_is_repaired_on_listing(
    redis_client: aioredis.Redis, key_prefix: str
) -> None:
    """A game that finished while its writer stopped before updating the index is listed as finished (and
    not as running) by the next listing once the write has settled."""
    now = [1_000_000]
    client = _Stopping(redis_client)
    stopping = event_store(client, key_prefix, clock_ms=lambda: now[0])  # type: ignore[arg-type]  # a client stand-in that stops answering
    await stopping.create("g1", {"game": "oldmen", "status": "running"}, events(b"a"))
    client.stop = True
    with pytest.raises(ConnectionError):
        await stopping.append(
            "g1",
            NewCommand(
                events(b"end"), expected_version=1, command_id="x", digest="d", seat=0, meta={"status": "finished"}
            ),
        )
    await stopping.close()
    now[0] += 60_000
    store = event_store(redis_client, key_prefix, clock_ms=lambda: now[0])
    finished = await store.list_games(game="", status="finished", limit=10, cursor="")
    running = await store.list_games(game="", status="running", limit=10, cursor="")
    assert [g["game_id"] for g in finished.games] == ["g1"]
    assert running.games == []
    await store.close()


async def _command(store: EventStore, game: str, version: int, *payloads: bytes, final: bool = False) -> None:
    """Append ``payloads`` as one command that names itself (its first event carries the command)."""
    await store.append(
        game,
        NewCommand(
            events(*payloads),
            expected_version=version,
            command_id=uuid.uuid4().hex,
            digest="d",
            seat=0,
            command=b"cmd",
            final=final,
        ),
    )


async def test_a_command_tail_gives_each_commands_events_together_history_then_live(store: EventStore) -> None:
    """The setup, then each command's events as one list, whether read from the history or live; a tail
    from inside a command starts with the rest of it; it ends after the final event."""
    await store.create("g1", {}, events(b"s1", b"s2"))
    await _command(store, "g1", 2, b"a1", b"a2", b"a3")
    tail = store.tail_commands("g1", 1)
    history = [await asyncio.wait_for(anext(tail), 5) for _ in range(2)]
    await _command(store, "g1", 5, b"b1")
    await _command(store, "g1", 6, b"c1", b"c2", final=True)
    live = [command async for command in tail]
    assert [[e.data for e in command] for command in history + live] == [
        [b"s1", b"s2"],
        [b"a1", b"a2", b"a3"],
        [b"b1"],
        [b"c1", b"c2"],
    ]
    inside = [[e.version for e in command] async for command in store.tail_commands("g1", 4)]
    assert inside == [[4, 5], [6], [7, 8]]


async def test_a_command_tail_keeps_a_command_whole_across_pages_of_history(store: EventStore) -> None:
    """More history than one read holds: a command cut by the page boundary still comes as one list."""
    await store.create("g1", {}, events(b"s"))
    version = 1
    for n in range(240):
        await _command(store, "g1", version, *(b"e%d" % i for i in range(3)), final=n == 239)
        version += 3
    commands = [command async for command in store.tail_commands("g1", 1)]
    assert [len(command) for command in commands] == [1] + [3] * 240
    assert [e.version for command in commands for e in command] == list(range(1, version + 1))
