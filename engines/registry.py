"""The games this installation plays, every rules version of each, in explicit tuples (no registration by
import side effect).

Each game lists its rules versions in ``engines/<game>/versions.py`` (``VERSIONS``, oldest first); a game
object is one version (:mod:`engines.rules`). :data:`REGISTRY` holds them all, keyed by game and rules
version: a game is always decided by the version it began under, and new games get the newest version of
their game, unless an operator pins another one (:meth:`Registry.pinned`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from types import ModuleType

from engines.contract import AnyGame, HiddenVariants, MalformedProbes
from engines.libertalia.versions import VERSIONS as LIBERTALIA_VERSIONS
from engines.oldmen.versions import VERSIONS as OLDMEN_VERSIONS
from engines.rules import split_version
from engines.texts import Catalog
from engines.verraeter.versions import VERSIONS as VERRAETER_VERSIONS

__all__ = [
    "GAMES",
    "REGISTRY",
    "Registry",
    "catalog_of",
    "game_names",
    "game_part",
    "get_game",
    "get_rules",
    "hidden_variants",
    "malformed_probes",
]


class Registry:
    """Rules versions by game, and the current version of each game (the one new games get)."""

    def __init__(self, versions: Iterable[AnyGame], pins: Mapping[str, str] | None = None) -> None:
        """``versions``: every game object (one per game and rules version), each game's oldest first.
        ``pins``: game name to the rules version new games of it get (default: the newest). Raises
        ValueError (a sentence for the operator) for two objects of one version, or a pin of no version
        this registry holds."""
        self._versions: dict[str, dict[str, AnyGame]] = {}
        for game in versions:
            name, version = game.spec.name, game.spec.rules_version
            if split_version(version)[0] != name:
                raise ValueError(f"{name}'s rules version {version!r} must start with '{name}/'")
            by_version = self._versions.setdefault(name, {})
            if version in by_version:
                raise ValueError(f"rules version {version} is registered twice")
            by_version[version] = game
        self._pins = dict(pins or {})
        for name, version in self._pins.items():
            if self.get(name, version) is None:
                raise ValueError(self._bad_pin(name, version))

    def _bad_pin(self, name: str, version: str) -> str:
        if name not in self._versions:
            return f"cannot pin {version!r}: there is no game {name!r} (games: {', '.join(self._versions)})"
        held = ", ".join(self._versions[name])
        return f"cannot pin {name} to {version!r}: this server holds the rules versions {held}"

    def pinned(self, pins: Mapping[str, str]) -> Registry:
        """The same versions with ``pins`` (game name to rules version) for new games; ValueError as in
        the constructor."""
        return Registry(self.all(), {**self._pins, **pins})

    def names(self) -> tuple[str, ...]:
        """Every game's name, in registry order."""
        return tuple(self._versions)

    def versions(self, name: str) -> tuple[AnyGame, ...]:
        """Every rules version of game ``name``, oldest first (empty for no such game)."""
        return tuple(self._versions.get(name, {}).values())

    def all(self) -> tuple[AnyGame, ...]:
        """Every rules version of every game."""
        return tuple(game for by_version in self._versions.values() for game in by_version.values())

    def current(self, name: str) -> AnyGame | None:
        """The version new games of ``name`` get: the pinned one, else the newest; None for no such game."""
        by_version = self._versions.get(name)
        if not by_version:
            return None
        pin = self._pins.get(name)
        return by_version[pin] if pin else max(by_version.values(), key=lambda g: split_version(g.spec.rules_version))

    def get(self, name: str, rules_version: str) -> AnyGame | None:
        """Game ``name`` under exactly ``rules_version``; None if this registry does not hold it."""
        return self._versions.get(name, {}).get(rules_version)


#: Every rules version of every game in this installation.
REGISTRY = Registry((*OLDMEN_VERSIONS, *VERRAETER_VERSIONS, *LIBERTALIA_VERSIONS))

#: The current version of each game, in registry order (what lists of games show and new games get).
GAMES: tuple[AnyGame, ...] = tuple(game for name in REGISTRY.names() if (game := REGISTRY.current(name)))


def get_game(name: str, rules_version: str = "") -> AnyGame | None:
    """Game ``name`` at ``rules_version`` (empty: its current version), or None if this installation does
    not hold it."""
    return REGISTRY.get(name, rules_version) if rules_version else REGISTRY.current(name)


def get_rules(rules_version: str) -> AnyGame | None:
    """The game object of ``rules_version`` (``"oldmen/1"``), or None if it is not held (or malformed)."""
    try:
        name, _ = split_version(rules_version)
    except ValueError:
        return None
    return REGISTRY.get(name, rules_version)


def game_names() -> tuple[str, ...]:
    """Names of all registered games, in registry order."""
    return REGISTRY.names()


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


def catalog_of(game: AnyGame) -> Catalog:
    """What ``engines/<game>/catalog.py`` says of ``game``'s rules version: every component named and
    explained in sentences, with the version's numbers (see :mod:`engines.texts`). Made once per version
    (by its fingerprint: equal rules, equal texts)."""
    key = game.rules.version.fingerprint()
    catalog = _CATALOGS.get(key)
    if catalog is None:
        catalog = _CATALOGS[key] = game_part(game, "catalog").catalog(game.rules)
    return catalog


#: Catalogues made so far, by rules version fingerprint (a handful: one per version).
_CATALOGS: dict[str, Catalog] = {}


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
