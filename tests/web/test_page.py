"""The web page in a real headless browser: the lobby, the live watch view, the replay, and each game's board."""

from __future__ import annotations

import asyncio
import random
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from parlour.bots import RandomBot
from parlour.client import GameClient
from parlour.play import play_seat
from parlour.v1 import game_pb2
from tests.rest.harness import JsonClient, RunningServer
from tests.rest.play import create_with_seats, play_to_end
from tests.web.games import GAMES, has_board
from tests.web.shots import save_shot


class PacedClient(GameClient):
    """A gRPC client whose commands take a little while, so a game stays in progress long enough to look at."""

    async def submit(self, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.05)
        return await super().submit(*args, **kwargs)


async def _move(api: JsonClient, game_id: str, tokens: dict[int, str], rng: random.Random) -> int:
    """One random legal command of the first pending seat; the game's version after it."""
    spectator = (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]
    seat = spectator["pendingSeats"][0]
    view = (await api.call("GET", f"/v1/games/{game_id}/view", token=tokens[seat], seat=seat))["view"]
    body = {"seat": seat, "command": rng.choice(view["legalCommands"]), "commandId": uuid.uuid4().hex}
    return int((await api.call("POST", f"/v1/games/{game_id}/commands", body, token=tokens[seat]))["version"])


async def test_the_lobby_lists_a_game_that_bots_are_playing(page: Page, server: RunningServer) -> None:
    async with PacedClient(server.grpc_target) as client:
        summary = await client.create_game("oldmen", 3)
        game_id = summary.game_id
        seats = [await client.claim_seat(game_id, f"bot-{n}") for n in range(3)]
        bots = [asyncio.create_task(play_seat(client, game_id, seat, token, RandomBot(seat))) for seat, token in seats]
        await page.goto("/")
        row = page.locator(f'#running tr[data-game-id="{game_id}"]')
        await expect(row).to_be_visible()
        await expect(row).to_contain_text("Old Men of the Forest")
        await expect(row).to_contain_text("bot-0, bot-1, bot-2")
        # Whose move it is, by name and seat, instead of a version counter.
        await expect(row.locator(".to-move")).to_have_text(re.compile(r"^bot-(\d) \(seat \1\)$"))
        finals = await asyncio.gather(*bots)
    assert all(view.status == game_pb2.GAME_STATUS_FINISHED for view in finals)
    finished = page.locator(f'#finished tr[data-game-id="{game_id}"]')
    await expect(finished).to_be_visible(timeout=10_000)
    winner = next(r for r in finals[0].results if r.rank == 1)
    await expect(finished).to_contain_text(f"1. {winner.player_name} (seat {winner.seat}) {winner.score}")
    await expect(finished.locator(".replay-link")).to_be_visible()


async def test_the_watch_view_updates_as_moves_arrive(page: Page, api: JsonClient, artifacts: Path) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3)
    start = int((await api.call("GET", f"/v1/games/{game_id}"))["game"]["version"])
    await page.goto(f"/#/watch/{game_id}")
    await expect(page.locator("#board")).to_have_attribute("data-version", str(start))
    await expect(page.locator("#watch-state")).to_have_text("live")
    rng = random.Random(4)
    for _ in range(6):
        version = await _move(api, game_id, tokens, rng)
        await expect(page.locator(f'#event-log li[data-version="{version}"]')).to_be_visible()
        await expect(page.locator("#board")).to_have_attribute("data-version", str(version))
    await expect(page.locator(".trick-card, .orangutan").first).to_be_visible()
    await save_shot(page, artifacts / "watch-oldmen.png")


async def test_the_replay_steps_to_a_given_move_and_shows_its_board(
    page: Page, api: JsonClient, artifacts: Path
) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3, seed="cmVwbGF5LW9mLWEtcGFnZQ==")
    await play_to_end(api, game_id, tokens, random.Random(8))
    events = (await api.call("GET", f"/v1/games/{game_id}/events", pageSize=1000))["events"]
    move_ends = [
        int(e["version"])
        for i, e in enumerate(events)
        if e["commandId"] and (i + 1 == len(events) or events[i + 1]["commandId"] != e["commandId"])
    ]
    third = move_ends[2]  # the version after the third move
    await page.goto(f"/#/replay/{game_id}")
    last = len(events)
    await expect(page.locator("#position")).to_have_text(f"version {last} of {last}")
    await expect(page.locator("#board .results")).to_be_visible()
    await page.select_option("#move", str(third))
    await expect(page.locator("#position")).to_have_text(f"version {third} of {last}")
    await expect(page.locator("#event-log li.current")).to_have_attribute("data-version", str(third))
    await _expect_board_at(page, third)
    await page.click("#next")
    await expect(page.locator("#position")).to_have_text(f"version {third + 1} of {last}")
    await page.click("#prev")
    await page.click("#prev")
    await expect(page.locator("#event-log li.current")).to_have_attribute("data-version", str(third - 1))
    # The game is over: every hand is public, at every step, so there is no seat's view to choose.
    await expect(page.locator("#replay-note")).to_contain_text("everything is public")
    await expect(page.locator("#perspective")).to_have_count(0)
    await expect(page.locator("#board .card.back")).to_have_count(0)
    await save_shot(page, artifacts / "replay-oldmen.png")


async def test_a_running_games_replay_is_seen_as_a_seat_this_browser_holds(page: Page, api: JsonClient) -> None:
    game_id, tokens = await create_with_seats(api, "oldmen", 3, seed="YSByZXBsYXkgb2YgYSBydW5uaW5nIGdhbWU=")
    rng = random.Random(9)
    for _ in range(4):
        await _move(api, game_id, tokens, rng)
    await page.goto(f"/#/play/{game_id}/1?token={tokens[1]}")  # the browser holds seat 1
    await expect(page.locator("#board")).to_be_visible()
    await page.goto(f"/#/replay/{game_id}")
    await expect(page.locator("#replay-note")).to_contain_text("still running")
    await expect(page.locator('#board .seat-panel[data-seat="1"] .card.back').first).to_be_visible()
    await expect(page.locator("#perspective option")).to_have_count(2)  # the spectator, and seat 1
    await page.select_option("#perspective", "1")
    await expect(page).to_have_url(re.compile(rf"#/replay/{game_id}\?seat=1&version=\d+$"))
    await expect(page.locator("#board")).to_have_attribute("data-seat", "1")
    await expect(page.locator('#board .seat-panel[data-seat="1"] .card.back')).to_have_count(0)  # its own hand
    await expect(page.locator('#board .seat-panel[data-seat="2"] .card.back').first).to_be_visible()


async def _expect_board_at(page: Page, version: int) -> None:
    """The board shows ``version``: the view at that version when the server offers it, otherwise the step's
    event above the final board."""
    board = page.locator(f'#board[data-version="{version}"]')
    step = page.locator(f'.step-event[data-version="{version}"]')
    await expect(board.or_(step).first).to_be_visible()  # waits for the view at that version to arrive


@pytest.mark.parametrize("game", GAMES)
async def test_each_game_has_a_board(page: Page, api: JsonClient, artifacts: Path, game: str) -> None:
    game_id, tokens = await create_with_seats(api, game, 3)
    rng = random.Random(2)
    for _ in range(30):
        await _move(api, game_id, tokens, rng)
    await page.goto(f"/#/watch/{game_id}")
    drawn = f"#board .board.{game}" if has_board(game) else "#board details.tree"  # its board, or its fields
    await expect(page.locator(drawn).first).to_be_visible()
    await expect(page.locator(".seat-panel")).to_have_count(3)
    await expect(page.locator("#event-log li").first).to_be_visible()
    await save_shot(page.locator("#board"), artifacts / f"board-{game}.png")
