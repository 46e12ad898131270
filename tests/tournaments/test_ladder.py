"""A standing ladder over the network (bots in this process, ``parlour bot --ladder`` and the Node.js bot
with ``--ladder``): bots that join while it runs are seated as long as they are connected, at most at their
cap of tables at once; the standings separate strong bots from weak ones, and ``parlour ladder verify``
recomputes the batch ratings from the games' exports, exactly."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from parlour.runner import BotRun
from parlour.v1 import game_service_pb2, game_service_pb2_grpc
from parlour.v1 import replay_service_pb2 as replay_pb
from parlour.v1 import replay_service_pb2_grpc as replay_grpc
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc
from service.bootstrap import App
from tests.conftest import RedisTarget, delete_prefix
from tests.tournaments.helpers import ADMIN_KEY, BOT_KEY, free_port, ladder_bot, serve_process, standings

GREEDY = ["greedy-1", "greedy-2", "greedy-3"]
HALF = ["half-greedy-1"]  # greedy half the time, random the other half
RANDOM = ["random-1", "random-2", "random-cli", "random-node"]
STRATEGY = {**dict.fromkeys(GREEDY, "greedy"), **dict.fromkeys(HALF, "half-greedy")}
NODE_BOT = Path(__file__).resolve().parents[2] / "clients" / "node" / "bot.js"
RATED_GAMES = 45


async def _cli(*argv: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "parlour.cli.main", *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def _replies(target: str, ladder_id: str, scheduled: int, finished: int) -> list[pb.WatchTournamentResponse]:
    """The ladder's stream up to ``scheduled`` tables and ``finished`` results (a ladder's stream never ends)."""
    replies: list[pb.WatchTournamentResponse] = []
    async with grpc.aio.insecure_channel(target) as channel:
        stream = pb_grpc.TournamentServiceStub(channel).WatchTournament(
            pb.WatchTournamentRequest(tournament_id=ladder_id)
        )
        async for reply in stream:
            replies.append(reply)
            kinds = [r.event.WhichOneof("kind") for r in replies]
            if kinds.count("table_scheduled") == scheduled and kinds.count("table_finished") == finished:
                stream.cancel()
                return replies
    raise AssertionError("the ladder's log ended")


async def _log(target: str, ladder_id: str, scheduled: int, finished: int) -> list[pb.TournamentEvent]:
    """The ladder's log up to ``scheduled`` tables and ``finished`` results."""
    return [reply.event for reply in await _replies(target, ladder_id, scheduled, finished)]


async def _export_all(target: str, game_ids: list[str], folder: Path) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = replay_grpc.ReplayServiceStub(channel)
        for game_id in game_ids:
            reply = await stub.ExportGame(replay_pb.ExportGameRequest(game_id=game_id))
            (folder / f"{game_id}.json").write_text(json_format.MessageToJson(reply.export), encoding="utf-8")


async def test_a_ladder_seats_connected_bots_ranks_them_and_its_table_is_recomputed_offline(
    admin_app: App, tmp_path: Path
) -> None:
    target = f"127.0.0.1:{admin_app.grpc_port}"
    code, out, err = await _cli(
        "ladder", "create", "libertalia", "--seats", "3", "--server", target, "--admin-key", ADMIN_KEY
    )
    assert code == 0, err
    ladder_id = out.strip()
    stop = asyncio.Event()
    runs: dict[str, asyncio.Task[BotRun]] = {}
    for name in GREEDY + HALF + RANDOM[:2]:  # they join the running ladder, each once connected
        runs[name] = ladder_bot(target, ladder_id, name, stop, STRATEGY.get(name, "random"))
    cli_bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "parlour.cli.main", "bot", "--server", target, "--name", RANDOM[2], "--key", BOT_KEY,
        "--ladder", ladder_id, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    node_bot = await asyncio.create_subprocess_exec(
        "node", str(NODE_BOT), "--server", target, "--name", RANDOM[3], "--key", BOT_KEY, "--ladder", ladder_id,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        for _ in range(1200):
            reply = await standings(target, ladder_id)
            if reply.tournament.games_finished >= RATED_GAMES:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"only {reply.tournament.games_finished} games were rated")
        runs[RANDOM[0]].cancel()  # random-1 disconnects: it is seated no more
        left = await standings(target, ladder_id)
        for _ in range(600):
            later = await standings(target, ladder_id)
            if later.tournament.games_scheduled >= left.tournament.games_scheduled + 4:
                break
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        for process in (cli_bot, node_bot):
            process.terminate()
            await process.wait()
        await asyncio.gather(*runs.values(), return_exceptions=True)
    final = await standings(target, ladder_id)
    replies = await _replies(target, ladder_id, final.tournament.games_scheduled, final.tournament.games_finished)
    events = [reply.event for reply in replies]
    # The stream's last reply (the newest event) carries the batch strengths GetStandings shows; the ones
    # that replayed the past carry the online ratings only.
    assert list(replies[-1].standings) == list(final.standings)
    assert all(s.strength == s.strength_low == s.strength_high == 0 for r in replies[:-1] for s in r.standings)

    busy: set[str] = set()
    tables = {}
    for event in events:
        if event.HasField("table_scheduled"):
            table = event.table_scheduled
            assert len(table.seats) == 3 and not busy & set(table.seats), (table, busy)  # one table at a time
            busy |= set(table.seats)
            tables[table.game_id] = table
        elif event.HasField("table_finished"):
            busy -= set(tables[event.table_finished.game_id].seats)
    after_leaving = [t for t in tables.values() if t.table >= left.tournament.games_scheduled + 1]
    assert after_leaving and all(RANDOM[0] not in t.seats for t in after_leaving)
    assert {bot for t in tables.values() for bot in t.seats} == set(GREEDY + HALF + RANDOM)

    rows = {s.bot_name: s for s in final.standings}
    assert [s.rank for s in final.standings] == sorted(s.rank for s in final.standings)
    table = [(s.bot_name, s.games, s.wins, round(s.strength, 2), round(s.strength_low, 2)) for s in final.standings]
    # The batch fit puts every greedy bot above every random one, and the best greedy's 95% interval above
    # the worst random's (apart intervals for every pair need more games than a test should play).
    assert min(rows[b].strength for b in GREEDY) > max(rows[b].strength for b in RANDOM), table
    assert max(rows[b].strength_low for b in GREEDY) > min(rows[b].strength_high for b in RANDOM), table
    assert final.standings[0].bot_name in GREEDY, table
    # The three strengths in order, on average.
    mean = {group[0]: sum(rows[b].strength for b in group) / len(group) for group in (GREEDY, HALF, RANDOM)}
    assert mean[GREEDY[0]] > mean[HALF[0]] > mean[RANDOM[0]], table

    finished = [e.table_finished.game_id for e in events if e.HasField("table_finished")]
    await _export_all(target, finished, tmp_path)
    code, out, err = await _cli("ladder", "verify", ladder_id, "--exports", str(tmp_path), "--server", target)
    assert code == 0, err
    assert f"{len(finished)} games verified; the server's batch ratings match" in out
    (tmp_path / f"{finished[0]}.json").unlink()
    code, _, err = await _cli("ladder", "verify", ladder_id, "--exports", str(tmp_path), "--server", target)
    assert code == 4 and f"1 of the ladder's {len(finished)} rated games have no export ({finished[0]})" in err
    await _export_all(target, [finished[0]], tmp_path)
    export = json_format.Parse((tmp_path / f"{finished[1]}.json").read_text(encoding="utf-8"), replay_pb.GameExport())
    export.results[0].rank, export.results[-1].rank = export.results[-1].rank, export.results[0].rank
    (tmp_path / f"{finished[1]}.json").write_text(json_format.MessageToJson(export), encoding="utf-8")
    code, _, err = await _cli("ladder", "verify", ladder_id, "--exports", str(tmp_path), "--server", target)
    assert code == 4 and f"game {finished[1]}: the export's results are not those the ladder recorded" in err


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"rounds": 2}, "a ladder has no rounds"),
        ({"min_table_size": 1}, "min_table_size must be 2 to table_size"),
        ({"max_games_per_bot": 17}, "max_games_per_bot must be 0"),
    ],
)
async def test_a_ladder_with_impossible_settings_is_refused_with_a_sentence(
    admin_app: App, change: dict[str, object], says: str
) -> None:
    settings = pb.TournamentSettings(
        name="l", game="oldmen", table_size=4, min_table_size=3, format=pb.TOURNAMENT_FORMAT_LADDER
    )
    for field, value in change.items():
        setattr(settings, field, value)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{admin_app.grpc_port}") as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.CreateTournament(
                pb.CreateTournamentRequest(settings=settings), metadata=[("x-parlour-admin-key", ADMIN_KEY)]
            )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and says in (refused.value.details() or "")


async def test_a_ladder_goes_on_on_another_server_when_its_scheduler_is_killed(
    redis_target: RedisTarget, key_prefix: str, tmp_path: Path
) -> None:
    """Two `parlour serve` processes share one Redis; the ladder is started on the first, which so runs its
    scheduler, and the bots play through the second. The first is killed (SIGKILL): the second takes the
    lease over, every table scheduled before the kill is finished once, and the ladder keeps seating
    tables, none of them twice."""
    ports = [free_port(), free_port()]
    first_target, target = f"127.0.0.1:{ports[0]}", f"127.0.0.1:{ports[1]}"
    names = ["a", "b", "c", "d", "e", "f"]
    stop = asyncio.Event()
    bots: list[asyncio.Task[BotRun]] = []
    try:
        async with serve_process(redis_target, key_prefix, ports[1], tmp_path / "second") as _:
            async with serve_process(redis_target, key_prefix, ports[0], tmp_path / "first") as first:
                code, out, err = await _cli(
                    "ladder", "create", "oldmen", "--seats", "3", "--server", first_target, "--admin-key", ADMIN_KEY
                )
                assert code == 0, err
                ladder_id = out.strip()
                for name in names:
                    bots.append(ladder_bot(target, ladder_id, name, stop))
                before = await _rated(target, ladder_id, 3)
                first.send_signal(signal.SIGKILL)
                await first.wait()
            after = await _rated(target, ladder_id, before.tournament.games_scheduled + 3, within_s=120)
            stop.set()
            await asyncio.gather(*bots, return_exceptions=True)
            final = await standings(target, ladder_id)
            events = await _log(target, ladder_id, final.tournament.games_scheduled, final.tournament.games_finished)
    finally:
        stop.set()
        await asyncio.gather(*bots, return_exceptions=True)
        await delete_prefix(redis_target.url, key_prefix)
    scheduled = [e.table_scheduled for e in events if e.HasField("table_scheduled")]
    finished = [e.table_finished.game_id for e in events if e.HasField("table_finished")]
    assert [t.table for t in scheduled] == list(range(len(scheduled)))  # none doubled, none skipped
    assert len({t.game_id for t in scheduled}) == len(scheduled) and len(set(finished)) == len(finished)
    assert {t.game_id for t in scheduled[: before.tournament.games_scheduled]} <= set(finished)  # none lost
    assert after.tournament.games_finished >= before.tournament.games_scheduled + 3


async def _rated(target: str, ladder_id: str, games: int, within_s: float = 60) -> pb.GetStandingsResponse:
    """The standings once ``games`` games are rated (failing after ``within_s`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while (reply := await standings(target, ladder_id)).tournament.games_finished < games:
        assert loop.time() < deadline, f"only {reply.tournament.games_finished} of {games} games were rated"
        await asyncio.sleep(0.1)
    return reply


async def test_a_ladder_with_duplicate_deals_plays_each_deal_once_per_rotation_and_withholds_it_meanwhile(
    admin_app: App,
) -> None:
    """The same group plays each deal once per seat rotation, one table after another; while a later
    rotation runs, an earlier one's log is refused to anyone without its seat token (game/hidden); the
    deal's results are recorded together at its end, and its games then verify with one seed."""
    target = f"127.0.0.1:{admin_app.grpc_port}"
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        games = game_service_pb2_grpc.GameServiceStub(channel)
        settings = pb.TournamentSettings(
            name="dup", game="oldmen", table_size=3, format=pb.TOURNAMENT_FORMAT_LADDER, duplicate_seeds=True
        )
        admin = (("x-parlour-admin-key", ADMIN_KEY),)
        made = await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings), metadata=admin)
        ladder_id = made.tournament.tournament_id
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=ladder_id), metadata=admin)
        stop = asyncio.Event()
        names = ["a", "b", "c", "d", "e", "f"]
        bots = [ladder_bot(target, ladder_id, name, stop) for name in names]
        hidden: list[str] = []
        first_rotation: dict[int, str] = {}
        try:
            stream = stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=ladder_id))
            async for reply in stream:
                table = reply.event.table_scheduled if reply.event.HasField("table_scheduled") else None
                if table is not None and table.rotation == 0:
                    first_rotation[table.deal] = table.game_id
                elif table is not None and table.rotation == 1:  # rotation 0 is over, rotation 2 to come
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await games.ListEvents(game_service_pb2.ListEventsRequest(game_id=first_rotation[table.deal]))
                    hidden.append(dict(refused.value.trailing_metadata() or ()).get("parlour-error-reason", ""))
                if reply.tournament.games_finished >= 6:
                    stream.cancel()
                    break
        finally:
            stop.set()
            await asyncio.gather(*bots, return_exceptions=True)
        final = await standings(target, ladder_id)
        events = await _log(target, ladder_id, final.tournament.games_scheduled, final.tournament.games_finished)
        exports = replay_grpc.ReplayServiceStub(channel)
        tables = [e.table_scheduled for e in events if e.HasField("table_scheduled")]
        finished = [e.table_finished.game_id for e in events if e.HasField("table_finished")]
        deals: dict[int, list[pb.TableScheduled]] = {}
        for table in tables:
            deals.setdefault(table.deal, []).append(table)
        done = [deal for deal, rotations in deals.items() if all(t.game_id in finished for t in rotations)]
        assert len(done) >= 2 and hidden and set(hidden) == {"game/hidden"}
        for deal in done:
            rotations = deals[deal]
            first = list(rotations[0].seats)
            assert [t.rotation for t in rotations] == [0, 1, 2]
            assert [list(t.seats) for t in rotations] == [first[s:] + first[:s] for s in range(3)]
            ids = [t.game_id for t in rotations]
            positions = sorted(finished.index(game_id) for game_id in ids)
            assert positions == list(range(positions[0], positions[0] + 3))  # recorded together
            seeds = set()
            for game_id in ids:
                export = (await exports.ExportGame(replay_pb.ExportGameRequest(game_id=game_id))).export
                verdict = await exports.VerifyGame(replay_pb.VerifyGameRequest(export=export))
                assert verdict.verified, verdict.message
                seeds.add(export.seed)
            assert len(seeds) == 1
