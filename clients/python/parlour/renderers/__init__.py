"""Text boards of games that have one: ``parlour/renderers/<game>.py`` (the module named like the game)
with ``render(view) -> list[str]``. :func:`parlour.render.render_view` finds them here; adding one
changes no other file (modules named ``_*`` are helpers)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

from parlour.v1 import game_pb2

__all__ = ["RENDERERS", "Renderer"]

#: A game's text board: the lines below the header, from a GameView alone.
Renderer = Callable[[game_pb2.GameView], list[str]]


def _renderers() -> dict[str, Renderer]:
    found: dict[str, Renderer] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module.name.startswith("_") and not module.ispkg:
            found[module.name] = importlib.import_module(f"{__name__}.{module.name}").render
    return found


#: Game name -> its text board.
RENDERERS: dict[str, Renderer] = _renderers()
