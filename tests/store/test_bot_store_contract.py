"""The bot store contract: every adapter of the BotStore port must pass these tests."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from service.store.bot_port import AssignmentRecord, BotNotice, BotStore
from tests.store.adapters import bot_store


@pytest.fixture
def bots(redis_client: aioredis.Redis, key_prefix: str) -> BotStore:
    return bot_store(redis_client, key_prefix)


async def test_the_first_key_hash_of_a_name_wins(bots: BotStore) -> None:
    """An unknown name stays unknown when asked without a hash; the first hash stored is kept."""
    assert await bots.key_hash("ada", None) is None
    assert await bots.key_hash("ada", "h1") == "h1"
    assert await bots.key_hash("ada", "h2") == "h1"
    assert await bots.key_hash("ada", None) == "h1"


async def test_the_games_a_bot_plays_are_remembered(bots: BotStore) -> None:
    """Empty means any game (or never said)."""
    assert await bots.games("bea") == []
    await bots.set_games("bea", ["oldmen", "verraeter"])
    assert await bots.games("bea") == ["oldmen", "verraeter"]


async def test_a_seat_is_assigned_to_a_bot_once_and_streams_in_order(bots: BotStore) -> None:
    """Assigning the same seat twice adds one entry; entries come after a given id, in order."""
    first = AssignmentRecord("g1", "oldmen", 0, "tok-0", "t1")
    second = AssignmentRecord("g2", "oldmen", 2, "tok-2")
    assert await bots.assign("cy", first) is True
    assert await bots.assign("cy", first) is False
    assert await bots.assign("cy", second) is True
    entries = await bots.assignments("cy")
    assert [record for _, record in entries] == [first, second]
    assert [record for _, record in await bots.assignments("cy", after=entries[0][0])] == [second]


async def test_a_blocking_read_wakes_for_a_new_assignment(bots: BotStore) -> None:
    """A reader waiting after the last entry gets the assignment made while it waits (or, if it asks
    late, finds it at once), well before its time limit."""
    await bots.assign("dee", AssignmentRecord("g3", "libertalia", 0, "tok-0"))
    ((last, _),) = await bots.assignments("dee")
    waiting = asyncio.ensure_future(bots.assignments("dee", after=last, block_ms=20_000))
    record = AssignmentRecord("g3", "libertalia", 1, "tok-1")
    await bots.assign("dee", record)
    done, _ = await asyncio.wait({waiting}, timeout=10)
    assert done, "the blocking read did not wake up for the new assignment"
    assert [r for _, r in waiting.result()] == [record]


async def test_a_notice_streams_in_order_with_the_assignments_and_wakes_a_blocking_read(bots: BotStore) -> None:
    """A notice is an entry of the same stream, read back as it was given, after the entries before it;
    a reader waiting after the last entry gets it."""
    seat = AssignmentRecord("g4", "oldmen", 0, "tok-0", "t2")
    await bots.assign("fay", seat)
    ((last, _),) = await bots.assignments("fay")
    waiting = asyncio.ensure_future(bots.assignments("fay", after=last, block_ms=20_000))
    notice = BotNotice("t2", "ladder/paused", "paused: it timed out; register again")
    await bots.notify("fay", notice)
    done, _ = await asyncio.wait({waiting}, timeout=10)
    assert done, "the blocking read did not wake up for the notice"
    assert [entry for _, entry in waiting.result()] == [notice]
    assert [entry for _, entry in await bots.assignments("fay")] == [seat, notice]


async def test_a_dropped_assignment_is_gone_from_the_stream_and_its_seat_forgotten(bots: BotStore) -> None:
    """After drop_assignment (its game was deleted) the entry is no longer read, the others stay, and
    dropping it again changes nothing."""
    gone = AssignmentRecord("g4", "oldmen", 1, "tok-1", "t2")
    kept = AssignmentRecord("g5", "oldmen", 0, "tok-0", "t3")
    await bots.assign("eve", gone)
    await bots.assign("eve", kept)
    (first, _), _ = await bots.assignments("eve")
    await bots.drop_assignment("eve", first, gone)
    await bots.drop_assignment("eve", first, gone)
    assert [record for _, record in await bots.assignments("eve")] == [kept]
    assert await bots.assign("eve", gone) is True  # the seat is no longer marked as given


async def test_a_held_name_lasts_while_its_holder_renews_it_and_goes_when_let_go(bots: BotStore) -> None:
    """A name registered with a holder is known; only its holder renews it or lets it go; letting go
    forgets it (its games too), so the next key registers it anew."""
    assert await bots.key_hash("fay", "h1", holder="s1", hold_ms=60_000) == "h1"
    await bots.set_games("fay", ["oldmen"])
    assert await bots.key_hash("fay", "h2", holder="s2", hold_ms=60_000) == "h1"  # the first hash wins
    assert await bots.renew("fay", "s1", 60_000) and not await bots.renew("fay", "s2", 60_000)
    assert not await bots.let_go("fay", "s2")
    assert await bots.let_go("fay", "s1")
    assert await bots.key_hash("fay", None) is None and await bots.games("fay") == []
    assert await bots.key_hash("fay", "h2") == "h2"


async def test_a_held_name_expires_unless_renewed(bots: BotStore) -> None:
    """A hold that is not renewed lapses and the name is unknown again."""
    assert await bots.key_hash("gus", "h1", holder="s1", hold_ms=200) == "h1"
    assert await bots.renew("gus", "s1", 200)
    await asyncio.sleep(0.5)
    assert await bots.key_hash("gus", None) is None
    assert not await bots.renew("gus", "s1", 200)


async def test_a_held_name_passes_to_a_new_holder_and_binding_keeps_it_for_good(bots: BotStore) -> None:
    """hold() passes a held name on (the old holder can no longer let it go); bind() ends the hold, after
    which no holder takes, renews or lets go of the name; a name kept for good is never held."""
    assert await bots.key_hash("hal", "h1", holder="s1", hold_ms=60_000) == "h1"
    assert await bots.hold("hal", "s2", 60_000)
    assert not await bots.let_go("hal", "s1")
    assert await bots.bind("hal") and await bots.bind("hal")
    assert not await bots.hold("hal", "s3", 200) and not await bots.renew("hal", "s2", 200)
    assert not await bots.let_go("hal", "s2")
    await asyncio.sleep(0.4)
    assert await bots.key_hash("hal", None) == "h1"
    assert not await bots.bind("nobody")
    assert await bots.key_hash("ida", "h1") == "h1"
    assert not await bots.hold("ida", "s1", 200) and not await bots.let_go("ida", "s1")


async def test_a_bot_is_present_while_its_session_says_so_and_gone_when_it_ends_or_lapses(bots: BotStore) -> None:
    """Presence: marked by a session, ended only by that session (a newer one keeps it), and lapsing."""
    assert await bots.present(["ann", "bob"]) == set()
    await bots.mark_present("ann", "s1", 60_000)
    await bots.mark_present("bob", "s2", 60_000)
    assert await bots.present(["ann", "bob", "cid"]) == {"ann", "bob"}
    await bots.mark_present("ann", "s3", 60_000)  # a newer session of ann
    await bots.mark_absent("ann", "s1")  # the old one ends: ann stays
    assert await bots.present(["ann"]) == {"ann"}
    await bots.mark_absent("ann", "s3")
    assert await bots.present(["ann", "bob"]) == {"bob"}
    await bots.mark_present("bob", "s2", 50)
    await asyncio.sleep(0.2)
    assert await bots.present(["bob"]) == set()
