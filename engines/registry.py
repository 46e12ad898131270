"""The games this server plays, in one explicit tuple (no registration by import side effect)."""

from __future__ import annotations

import importlib
from types import ModuleType

from engines.contract import AnyGame, HiddenVariants, MalformedProbes
from engines.libertalia import LIBERTALIA
from engines.oldmen import OLDMEN
from engines.verraeter import VERRAETER

__all__ = ["GAMES", "game_names", "game_part", "get_game", "hidden_variants", "malformed_probes"]

GAMES: tuple[AnyGame, ...] = (OLDMEN, VERRAETER, LIBERTALIA)

_BY_NAME = {game.spec.name: game for game in GAMES}


def get_game(name: str) -> AnyGame | None:
    """The game registered under ``name``, or ``None``."""
    return _BY_NAME.get(name)


def game_names() -> tuple[str, ...]:
    """Names of all registered games, in registry order."""
    return tuple(_BY_NAME)


def game_part(game: AnyGame, part: str) -> ModuleType:
    """The module ``part`` of ``game``'s own package (``engines/<game>/<part>.py``), where a game keeps
    what it says about itself beyond the :class:`~engines.contract.Game` object (its hidden information).
    Raises ``LookupError`` naming the file a registered game lacks."""
    package = type(game).__module__.rpartition(".")[0]
    try:
        return importlib.import_module(f"{package}.{part}")
    except ModuleNotFoundError as missing:
        if missing.name != f"{package}.{part}":
            raise
        path = package.replace(".", "/")
        raise LookupError(f"{game.spec.name} has no {path}/{part}.py; see engines/README.md") from None


def hidden_variants(game: AnyGame) -> HiddenVariants:
    """``variants`` of ``engines/<game>/hidden.py``: copies of the setup events that only differ in what a
    seat may not see (see :class:`~engines.contract.HiddenVariants`)."""
    variants: HiddenVariants = game_part(game, "hidden").variants
    return variants


def malformed_probes(game: AnyGame) -> MalformedProbes:
    """What ``engines/<game>/malformed.py`` says about commands the game cannot understand (see
    :class:`~engines.contract.MalformedProbes`)."""
    module = game_part(game, "malformed")
    return MalformedProbes(
        commands=module.commands,
        understood_kinds=frozenset(module.UNDERSTOOD_KINDS),
        acting_phases=frozenset(module.ACTING_PHASES),
    )
