"""The ladder pages: the list of ladders, a ladder's live leaderboard with its ratings and batch strengths
(and which bots are paused), and a bot's page with its rating over time and its recent games (each opening
in the replay view), drawn from the ladder's event stream; all without serious axe-core violations."""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Iterator

import grpc
import pytest
from playwright.async_api import Page, expect

from parlour.bots import make_bot
from parlour.runner import run_bot
from parlour.v1 import clock_pb2
from parlour.v1 import tournament_service_pb2 as pb
from parlour.v1 import tournament_service_pb2_grpc as pb_grpc
from tests.rest.harness import RunningServer, server_in_thread
from tests.tournaments.helpers import SilentBot
from tests.web.conftest import ARTIFACTS
from tests.web.shots import save_shot
from tests.web.test_a11y import serious

ADMIN_KEY = "web-admin-key-0123456789"
BOT_KEY = "web-bot-key-0123456789"
BOTS = ["ann", "bob", "cid", "dee", "eve", "fay"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server with an admin key (ladders are created by the admin)."""
    with server_in_thread(tmp_path_factory.mktemp("ladder-page"), admin_key=ADMIN_KEY, min_move_ms=10) as running:
        yield running


async def _ladder_with_games(
    target: str, games: int, *, silent: str = "", bots: list[str] = BOTS
) -> tuple[str, pb.GetStandingsResponse]:
    """A ladder of Old Men of the Forest where random bots played until ``games`` games were rated; with
    ``silent``, the ladder has a clock and a bot of that name that never moves joins it, until it is paused
    (after one game in which its clock ran out)."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        admin = (("x-parlour-admin-key", ADMIN_KEY),)
        settings = pb.TournamentSettings(
            name="Forest ladder", game="oldmen", table_size=3, format=pb.TOURNAMENT_FORMAT_LADDER
        )
        if silent:
            settings.time_control.CopyFrom(clock_pb2.TimeControl(move_ms=1000, max_timeouts=1))
            settings.pause_after_timeouts = 1
        ladder_id = (
            await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings), metadata=admin)
        ).tournament.tournament_id
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=ladder_id), metadata=admin)

        async def join(name: str) -> None:
            await stub.RegisterBot(pb.RegisterBotRequest(tournament_id=ladder_id, bot_name=name, bot_key=BOT_KEY))

        stop = asyncio.Event()
        sleeper = SilentBot(channel, silent, key=BOT_KEY) if silent else None
        if sleeper is not None:
            await sleeper.welcomed()
            await join(silent)
        tasks = [
            asyncio.create_task(
                run_bot(
                    target,
                    n,
                    BOT_KEY,
                    functools.partial(make_bot, "random", seed=n),
                    stop=stop,
                    on_welcome=functools.partial(join, n),
                )
            )
            for n in bots
        ]
        try:
            for _ in range(600):
                reply = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=ladder_id))
                paused = not silent or any(s.paused for s in reply.standings)
                if reply.tournament.games_finished >= games and paused:
                    return ladder_id, reply
                await asyncio.sleep(0.1)
            raise AssertionError("the ladder did not rate its games")
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            if sleeper is not None:
                await sleeper.close()


async def test_a_ladders_leaderboard_and_a_bots_rating_over_time(page: Page, server: RunningServer) -> None:
    ladder_id, standings = await _ladder_with_games(server.grpc_target, 4)
    await page.goto("/#/ladders")
    await page.locator(f'#ladders tr[data-ladder-id="{ladder_id}"] a').click()
    board = page.locator("#leaderboard tbody tr[data-bot]")
    await expect(board).to_have_count(len(BOTS))
    await expect(page.locator("h1")).to_have_text("Forest ladder (oldmen)")
    leader = standings.standings[0]
    first = board.first
    await expect(first).to_have_attribute("data-bot", leader.bot_name)
    await expect(first.locator("td.interval")).to_contain_text("[")
    assert await serious(page, "ladder") == []
    await save_shot(page, ARTIFACTS / "ladder.png")

    games = int(await first.locator("td").nth(2).inner_text())
    await first.locator("a.bot-link").click()
    await expect(page.locator("h1")).to_have_text(f"{leader.bot_name} on the ladder")
    await expect(page.locator("#rating-chart")).to_have_attribute("data-points", str(games))  # a point per game
    recent = page.locator("#recent-games a.replay-link")
    await expect(recent).to_have_count(min(games, 10))
    assert await serious(page, "ladder-bot") == []
    await save_shot(page, ARTIFACTS / "ladder-bot.png")
    game_id = await recent.first.evaluate("a => a.closest('li').dataset.gameId")
    await recent.first.click()
    await expect(page.locator("h1")).to_contain_text(f"Replay of Old Men of the Forest {game_id}")


async def test_a_paused_bot_is_marked_on_the_leaderboard(page: Page, server: RunningServer) -> None:
    """A bot whose clock ran out is marked "(paused)" on the leaderboard, with why on hover; the others
    are not."""
    ladder_id, standings = await _ladder_with_games(server.grpc_target, 1, silent="mute", bots=BOTS[:3])
    assert [s.bot_name for s in standings.standings if s.paused] == ["mute"]
    await page.goto(f"/#/ladders/{ladder_id}")
    board = page.locator("#leaderboard tbody tr[data-bot]")
    await expect(board).to_have_count(4)
    mark = page.locator('#leaderboard tr[data-bot="mute"] .paused')
    await expect(mark).to_have_text("(paused)")
    await expect(mark).to_have_attribute("title", re.compile("seated no more until it joins again"))
    await expect(page.locator("#leaderboard .paused")).to_have_count(1)
    assert await serious(page, "ladder-paused") == []
