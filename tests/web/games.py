"""Which games the page tests play, from the registry: every registered game, with its own board where
``clients/web/games/<game>.js`` exists (otherwise the page shows the view's fields)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from engines.registry import game_names
from parlour.bots import STRATEGIES

__all__ = ["DATA_CODES", "GAMES", "SHOWN_TEXT", "WEB", "codes_in", "has_board", "house_strategy"]

#: The page's files.
WEB = Path(__file__).resolve().parents[2] / "clients" / "web"

#: Every registered game, in registry order.
GAMES = list(game_names())


def has_board(game: str) -> bool:
    """Whether the page has a module of its own for ``game`` (its board, its sentences, its command words)."""
    return (WEB / "games" / f"{game}.js").is_file()


def house_strategy(game: str) -> str:
    """The strongest house bot the server has for ``game``: greedy where there is one, else random."""
    return "greedy" if game in STRATEGIES.get("greedy", {}) else "random"


def _ids(value: Any, key: str = "") -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_ids(v, k) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(_ids(v, key) for v in value))
    return {value} if isinstance(value, str) and key in {"id", "type"} else set()


#: The ids in the engines' data files (every "id" and "type" value of ``engines/<game>/*.json``) that are
#: codes, not words: "land5p", "diplomat2", "O07", "river-A". The page gives each words and never shows
#: one as it is (an id that is a plain word, such as "river", may be shown).
DATA_CODES = sorted(
    code
    for path in sorted((WEB.parents[1] / "engines").glob("*/*.json"))
    for code in _ids(json.loads(path.read_text(encoding="utf-8")))
    if not re.fullmatch(r"[a-z]+", code)
)

#: What a page shows a person: its text, and the titles and labels of its elements (tooltips, the names a
#: screen reader reads).
SHOWN_TEXT = """() => [document.body.innerText,
  ...[...document.querySelectorAll('[title], [aria-label]')].flatMap((e) => [e.title, e.getAttribute('aria-label')])]
  .filter(Boolean).join('\\n')"""


def codes_in(text: str) -> list[str]:
    """The data codes (:data:`DATA_CODES`) that ``text`` shows as they are (as a whole word, in any case)."""
    return [c for c in DATA_CODES if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", text, re.IGNORECASE)]
