"""Every event of every game reads as a sentence on the page, and every command has words: the game modules
of the page name each kind the protos define (a kind added to a proto without words fails here). Games are
the registered ones with a module on the page (``clients/web/games/<game>.js``). Every land type of
Verräter's data has words."""

from __future__ import annotations

import json

import pytest
from google.protobuf.descriptor import Descriptor
from playwright.async_api import Page

from engines.registry import GAMES
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


async def test_every_land_type_of_verraeters_data_has_words(page: Page) -> None:
    data = json.loads((WEB.parents[1] / "engines" / "verraeter" / "verraeter.json").read_text(encoding="utf-8"))
    await page.goto("/")
    named = await page.evaluate('async () => Object.keys((await import("/games/verraeter.js")).LAND_TYPES).sort()')
    assert named == sorted(t["id"] for t in data["land_types"])
