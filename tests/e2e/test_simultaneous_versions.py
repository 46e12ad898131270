"""The documented advice (docs/concepts/commands-and-events.md) on ``expected_version`` in simultaneous
phases: when every seat chooses at once
(Libertalia's character selection), commands sent at the same moment with the view's version are refused
as stale but one, while the same commands sent without it are all applied."""

from __future__ import annotations

import asyncio

from parlour.client import GameClient, ParlourError
from tests.e2e.helpers import seated_game


async def _choose_at_once(client: GameClient, *, with_version: bool, seed: bytes) -> list[object]:
    game = await seated_game(client, "libertalia", 3, seed=seed)
    views = [await client.view(game.game_id, seat, game.tokens[seat]) for seat in range(3)]
    assert sorted(views[0].pending_seats) == [0, 1, 2]  # a simultaneous phase
    return await asyncio.gather(
        *(
            client.submit(
                game.game_id,
                seat,
                game.tokens[seat],
                view.legal_commands[0],
                expected_version=view.version if with_version else None,
            )
            for seat, view in enumerate(views)
        ),
        return_exceptions=True,
    )


async def test_simultaneous_choices_need_no_expected_version(target: str) -> None:
    async with GameClient(target) as client:
        pinned = await _choose_at_once(client, with_version=True, seed=b"simultaneous-1")
        free = await _choose_at_once(client, with_version=False, seed=b"simultaneous-2")
    stale = [r for r in pinned if isinstance(r, ParlourError)]
    assert len(stale) == 2 and all(r.reason == "game/stale_version" for r in stale)
    assert not any(isinstance(r, BaseException) for r in free), free
