"""Whose move it is and what to do, as a person at the table sees and hears it: a one-line "what to do now"
for each phase; the last move in words and marked on the board; the tab's title and an optional sound
(off by default) when it becomes the seat's move; the keyboard stays on the board after a move; the log
can be reached and scrolled with the keyboard. The test plays the other seats itself over REST."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.rest.harness import JsonClient
from tests.web.helpers import NAMES, at, move, seat_view, sit, table
from tests.web.shots import save_shot

#: The first "what to do now" of each game, at seat 0's first move.
FIRST_HINTS = {
    "oldmen": "Play a card from your hand into the trick",
    "verraeter": "Place one of your estates: click a land on the ring.",
    "libertalia": "Choose a character from your hand to send to the island",
}

#: Counts the tones the page starts (Web Audio), so the test can hear the sound without a speaker.
_COUNT_TONES = """(() => {
  window.tones = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.tones += 1; return start.apply(this, args); };
})()"""


async def _until_seat_moves(api: JsonClient, game_id: str, tokens: dict[int, str], seat: int) -> int:
    """Moves of the other seats until ``seat`` must act; the version then."""
    rng = random.Random(seat)
    for _ in range(200):
        view = await seat_view(api, game_id, tokens, seat)
        if view["legalCommands"]:
            return int(view["version"])
        await move(api, game_id, tokens, rng)
    raise AssertionError(f"seat {seat} never had to move")


@pytest.mark.parametrize("game", list(FIRST_HINTS))
async def test_each_phase_says_what_to_do_now(page: Page, api: JsonClient, game: str) -> None:
    game_id, tokens = await table(api, game, 3, f"what to do now in {game}")
    version = await _until_seat_moves(api, game_id, tokens, 0)
    await sit(page, game_id, tokens, 0)
    await at(page, version)
    await expect(page.locator("#hint")).to_contain_text(FIRST_HINTS[game])
    rng = random.Random(game)
    for _ in range(40):  # every phase met on the way has its line, the seat's own or the others'
        version = await move(api, game_id, tokens, rng)
        await at(page, version)
        view = await seat_view(api, game_id, tokens, 0)
        if view["status"] == "GAME_STATUS_FINISHED":
            break
        hint = await page.locator("#hint").inner_text()
        assert hint.strip(), (game, version, view[game].get("phase"))
        if view["legalCommands"]:
            assert "Waiting" not in hint
        else:
            assert any(name in hint for name in NAMES[1:3]), hint  # what the others are doing, by name


async def test_the_last_move_is_said_and_marked_on_the_board(page: Page, api: JsonClient, artifacts: Path) -> None:
    game_id, tokens = await table(api, "oldmen", 3, "the last move of an old men game")
    await sit(page, game_id, tokens, 0)
    rng = random.Random(12)
    for _ in range(100):  # until another seat is to play a card into the trick
        seat = (await api.call("GET", f"/v1/games/{game_id}/view"))["view"]["pendingSeats"][0]
        theirs = await seat_view(api, game_id, tokens, seat)
        if seat != 0 and "playCard" in theirs["legalCommands"][0]["oldmen"]:
            break
        await move(api, game_id, tokens, rng)
    body = {"seat": seat, "command": theirs["legalCommands"][0], "commandId": uuid.uuid4().hex}
    version = (await api.call("POST", f"/v1/games/{game_id}/commands", body, token=tokens[seat]))["version"]
    await at(page, version)
    played = theirs["legalCommands"][0]["oldmen"]["playCard"]["card"]
    colour = played["colour"].removeprefix("OLDMEN_COLOUR_").lower()
    line = page.locator("#last-move")
    await expect(line).to_contain_text(f"Last move: {NAMES[seat]} plays the {colour} {played['value']}.")
    marked = page.locator("#board .last-move")
    await expect(marked).to_have_count(2)  # the mover's panel and the card in the trick
    await expect(page.locator(f'#board .seat-panel[data-seat="{seat}"].last-move')).to_contain_text("moved last")
    await expect(page.locator("#board .trick-card.last-move")).to_contain_text(NAMES[seat])
    await expect(page.locator("#event-log li").first).to_contain_text(f"{NAMES[seat]} plays the {colour}")
    await save_shot(page, artifacts / "last-move-oldmen.png")


async def test_the_title_and_an_optional_sound_say_it_is_your_move(page: Page, api: JsonClient) -> None:
    await page.add_init_script(_COUNT_TONES)
    game_id, tokens = await table(api, "oldmen", 3, "the title and the sound of a move")
    version = await _until_seat_moves(api, game_id, tokens, 0)
    await sit(page, game_id, tokens, 0)
    await at(page, version)
    await expect(page).to_have_title("▶ Your move · Old Men of the Forest · Parlour")
    sound = page.locator("#sound")
    await expect(sound).not_to_be_checked()  # off unless the person turns it on
    await page.locator("[data-legal-command]:visible").first.click()
    await expect(page).to_have_title("Old Men of the Forest · Parlour")
    rng = random.Random(3)
    while not (await seat_view(api, game_id, tokens, 0))["legalCommands"]:
        await move(api, game_id, tokens, rng)
    await expect(page).to_have_title("▶ Your move · Old Men of the Forest · Parlour")
    assert await page.evaluate("window.tones") == 0  # no sound while it is off
    await sound.check()
    assert await page.evaluate("window.tones") == 2  # a chime of two tones: what it will sound like
    await page.locator("[data-legal-command]:visible").first.click()
    await expect(page).to_have_title("Old Men of the Forest · Parlour")
    while not (await seat_view(api, game_id, tokens, 0))["legalCommands"]:
        await move(api, game_id, tokens, rng)
    await expect(page).to_have_title("▶ Your move · Old Men of the Forest · Parlour")
    await page.wait_for_function("window.tones === 4")
    await page.reload()
    await expect(page.locator("#sound")).to_be_checked()  # the choice is kept in this browser


async def test_the_keyboard_stays_on_the_board_after_a_move_and_reaches_the_log(page: Page, api: JsonClient) -> None:
    game_id, tokens = await table(api, "libertalia", 3, "the keyboard at a libertalia table")
    await sit(page, game_id, tokens, 0)
    version = await page.locator("#board").get_attribute("data-version")
    await page.locator("#board [data-legal-command]").first.focus()
    await page.keyboard.press("Enter")
    await expect(page.locator("#board")).not_to_have_attribute("data-version", str(version))
    in_play = "() => Boolean(document.activeElement?.closest('.board-slot, #actions'))"
    assert await page.evaluate(in_play), await page.evaluate("() => document.activeElement?.outerHTML")
    for _ in range(60):  # Tab goes on from the board to the log, which then scrolls with the arrow keys
        await page.keyboard.press("Tab")
        if await page.evaluate("() => document.activeElement?.id") == "event-log":
            break
    else:
        pytest.fail("Tab never reached the log")
    log = page.locator("#event-log")
    await expect(log).to_have_attribute("aria-label", "what happened, newest first")
    await page.evaluate("() => { document.querySelector('#event-log').style.maxHeight = '6rem'; }")
    await page.keyboard.press("PageDown")
    await page.wait_for_function("() => document.querySelector('#event-log').scrollTop > 0")
