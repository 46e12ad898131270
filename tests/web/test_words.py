"""Every event of every game reads as a sentence on the page, and every command has words: the game modules
of the page name each kind the protos define (a kind added to a proto without words fails here). Games are
the registered ones with a module on the page (``clients/web/games/<game>.js``). A few fixed events of each
game read as the exact sentence the log shows, and every land type of Verräter's data has words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from playwright.async_api import Browser, Page

from engines.registry import GAMES
from parlour.v1 import libertalia_pb2 as lib
from parlour.v1 import oldmen_pb2 as old
from parlour.v1 import verraeter_pb2 as ver
from tests.rest.harness import RunningServer
from tests.web.games import WEB, has_board

#: Each registered game with a module of its own on the page: its event and command messages.
MESSAGES = {g.spec.name: (g.event_type, g.command_type) for g in GAMES if has_board(g.spec.name)}


def _kinds(descriptor: Descriptor) -> list[str]:
    return sorted(f.json_name for f in descriptor.oneofs_by_name["kind"].fields)


@pytest.mark.parametrize("game", list(MESSAGES))
async def test_each_event_and_command_of_the_game_has_words(page: Page, game: str) -> None:
    event, command = MESSAGES[game]
    await page.goto("/")
    named = await page.evaluate(
        """async ([game, commands]) => {
          const common = await import("/games/common.js");
          const module = await import(`/games/${game}.js`);
          const view = { game, seat: 0, [game]: {} };
          const context = { names: ["Anna", "Ben", "Carl"], seat: 0 };
          return {
            events: Object.keys(common.SENTENCES[game]).sort(),
            commands: commands.filter((kind) => module.commandLabel(kind, {}, view, context)),
          };
        }""",
        [game, _kinds(command.DESCRIPTOR)],
    )
    assert named == {"events": _kinds(event.DESCRIPTOR), "commands": _kinds(command.DESCRIPTOR)}


_BOX, _SUPPLY, _BAG = lib.LIBERTALIA_LOOT_PLACE_BOX, lib.LIBERTALIA_LOOT_PLACE_SUPPLY, lib.LIBERTALIA_LOOT_PLACE_BAG


def _loot(loot: int, count: int, source: tuple[int, int], target: tuple[int, int]) -> lib.LibertaliaEvent:
    moved = lib.LibertaliaLootMoved(loot=loot, count=count, from_place=source[0], from_index=source[1])
    moved.to_place, moved.to_index = target
    return lib.LibertaliaEvent(loot_moved=moved)


def _red(value: int) -> old.OldmenCard:
    return old.OldmenCard(colour=old.OLDMEN_COLOUR_RED, value=value)


#: Fixed events of each game and the sentence the log shows for each, to Anna at seat 0 (Ben is seat 1,
#: Carl seat 2). Verräter's ring starts with the 5-player land at 0 and a river at 1.
SENTENCES: dict[str, list[tuple[Message, str]]] = {
    "libertalia": [
        (_loot(lib.LIBERTALIA_LOOT_MAP, 1, (_BOX, 2), (_SUPPLY, 1)), "A map goes from the box of day 2 to Ben's loot."),
        (
            _loot(lib.LIBERTALIA_LOOT_BARREL, 1, (_BOX, 1), (_SUPPLY, 0)),
            "A barrel goes from the box of day 1 to your loot.",
        ),
        (
            _loot(lib.LIBERTALIA_LOOT_CHEST, 1, (_BOX, 3), (_BOX, 4)),
            "A chest goes from the box of day 3 to the box of day 4.",
        ),
        (
            _loot(lib.LIBERTALIA_LOOT_AMULET, 1, (_SUPPLY, 2), (_SUPPLY, 0)),
            "An amulet goes from Carl's loot to your loot.",
        ),
        (
            _loot(lib.LIBERTALIA_LOOT_RELIC, 2, (_SUPPLY, 1), (_BAG, 0)),
            "2 \u00d7 relic goes from Ben's loot to the bag.",
        ),
        (
            lib.LibertaliaEvent(doubloons_changed=lib.LibertaliaDoubloonsChanged(seat=1, amount=-3, doubloons=2)),
            "Ben loses 3 doubloons (now 2).",
        ),
        (
            lib.LibertaliaEvent(phase_started=lib.LibertaliaPhaseStarted(phase=lib.LIBERTALIA_PHASE_DUSK, day=2)),
            "Dusk of day 2.",
        ),
    ],
    "oldmen": [
        (old.OldmenEvent(card_played=old.OldmenCardPlayed(seat=1, card=_red(7))), "Ben plays the red 7."),
        (old.OldmenEvent(card_played=old.OldmenCardPlayed(seat=0, card=_red(3))), "You play the red 3."),
        (
            old.OldmenEvent(trick_ranked=old.OldmenTrickRanked(first_seat=2, second_seat=0)),
            "Carl wins the trick, Anna comes second.",
        ),
        (
            old.OldmenEvent(card_taken=old.OldmenCardTaken(seat=0, from_seat=1, card=_red(7))),
            "You take the red 7 from Ben.",
        ),
    ],
    "verraeter": [
        (
            ver.VerraeterEvent(
                building_placed=ver.VerraeterBuildingPlaced(seat=1, position=0, side=ver.VERRAETER_BUILDING_SIDE_ESTATE)
            ),
            "Ben builds an estate on the 5-player land (0).",
        ),
        (
            ver.VerraeterEvent(battlefield_chosen=ver.VerraeterBattlefieldChosen(seat=0, position=1, round=2)),
            "Round 2: you choose the battle at the river (1).",
        ),
        (
            ver.VerraeterEvent(land_flipped=ver.VerraeterLandFlipped(position=0, house=ver.VERRAETER_HOUSE_ROSE)),
            "The 5-player land (0) goes over to the Rose house.",
        ),
        (
            ver.VerraeterEvent(
                action_card_taken=ver.VerraeterActionCardTaken(seat=2, card=ver.VERRAETER_ACTION_DIPLOMAT2)
            ),
            "Carl takes the Diplomat (2 cards).",
        ),
    ],
}


def _json(message: Message) -> dict[str, Any]:
    """A message as the server's REST API sends it (fields with default values included)."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


@pytest.mark.parametrize("game", list(SENTENCES))
async def test_fixed_events_read_as_their_sentences(page: Page, game: str) -> None:
    await page.goto("/")
    shown = await page.evaluate(
        """async ([game, events]) => {
          const common = await import("/games/common.js");
          await import(`/games/${game}.js`);
          const context = { names: ["Anna", "Ben", "Carl"], seat: 0,
            lands: [{ position: 0, type: "land5p" }, { position: 1, type: "river" }] };
          return events.map((event) => common.describeEvent({ version: "1", [game]: event }, context));
        }""",
        [game, [_json(event) for event, _ in SENTENCES[game]]],
    )
    assert shown == [sentence for _, sentence in SENTENCES[game]]


async def test_every_land_type_of_verraeters_data_has_words(page: Page) -> None:
    data = json.loads((WEB.parents[1] / "engines" / "verraeter" / "verraeter.json").read_text(encoding="utf-8"))
    await page.goto("/")
    named = await page.evaluate('async () => Object.keys((await import("/games/verraeter.js")).LAND_TYPES).sort()')
    assert named == sorted(t["id"] for t in data["land_types"])


async def test_a_sentence_that_throws_is_a_console_error_and_the_event_shows_its_fields(
    browser: Browser, server: RunningServer
) -> None:
    context = await browser.new_context(base_url=server.http_url)
    try:
        page = await context.new_page()
        await page.goto("/")
        async with page.expect_console_message(lambda message: message.type == "error", timeout=5000) as logged:
            shown = await page.evaluate(
                """async () => {
                  const common = await import("/games/common.js");
                  await import("/games/oldmen.js");
                  common.SENTENCES.oldmen.cardPlayed = () => { throw new Error("a broken sentence"); };
                  const played = { seat: 1, card: { colour: "OLDMEN_COLOUR_RED", value: 7 } };
                  const context = { names: ["Anna", "Ben"], seat: 0 };
                  return common.describeEvent({ version: "1", oldmen: { cardPlayed: played } }, context);
                }"""
            )
        message = await logged.value
    finally:
        await context.close()
    assert "oldmen cardPlayed" in message.text and "a broken sentence" in message.text
    assert shown == "card played: Ben, card red 7"


#: A thing of each kind each game names, as the arguments of its ``WORDS`` entry (context last, if any).
THINGS: dict[str, dict[str, list[Any]]] = {
    "oldmen": {
        "card": [{"colour": "OLDMEN_COLOUR_RED", "value": 7}],
        "orangutan": [{"id": "O07", "vp": 7, "needs": ["OLDMEN_COLOUR_BLUE", "OLDMEN_COLOUR_GREEN"]}],
        "saved": [{"orangutanId": "O07", "vp": 7, "tucked": [{"colour": "OLDMEN_COLOUR_RED", "value": 2}]}],
    },
    "verraeter": {
        "land": [{"position": 1, "type": "river", "base": 5, "house": "VERRAETER_HOUSE_EAGLE"}],
        "action": ["VERRAETER_ACTION_DIPLOMAT2"],
        "supply": [4],
    },
    "libertalia": {
        "character": [18, 1, {"names": ["Anna", "Ben", "Carl"], "seat": 0}],
        "loot": ["LIBERTALIA_LOOT_MAP"],
    },
}

#: What each of :data:`THINGS` is called: (label on the board, text in commands and the log, tooltip).
CALLED = {
    "oldmen": {
        "card": ["7", "red 7", "red 7"],
        "orangutan": ["7 VP", "the 7 VP orangutan", "7 VP orangutan, needs blue and green"],
        "saved": ["7 VP (\u22121)", "the 7 VP orangutan", "7 VP, 1 card under it"],
    },
    "verraeter": {
        "land": ["1. river", "the river (1)", "river, base 5, eagle"],
        "action": ["Diplomat (2 cards)", "Diplomat (2 cards)", None],
        "supply": ["4", "4", None],
    },
    "libertalia": {"character": ["#18", "character 18", "character 18 of Ben"], "loot": ["map", "map", "map"]},
}


@pytest.mark.parametrize("game", list(THINGS))
async def test_each_things_words_come_from_one_place_in_its_game(page: Page, game: str) -> None:
    """Each game's module names its things (cards, lands, characters, loot) in one ``WORDS`` table: the
    label the board shows, the text of commands and sentences, and the tooltip. When the API gives names
    and effects, that table is what changes."""
    await page.goto("/")
    called = await page.evaluate(
        """async ([game, things]) => {
          const module = await import(`/games/${game}.js`);
          return Object.fromEntries(Object.entries(things).map(([kind, args]) => {
            const words = module.WORDS[kind](...args);
            return [kind, [words.label, words.text, words.tip ?? null]];
          }));
        }""",
        [game, THINGS[game]],
    )
    assert called == CALLED[game]
