"""What each released rules version must go on doing, kept under ``tests/golden/``: its golden transcript
(one game move by move) and its fingerprint in ``versions.json`` (its data files and flags, and a digest
of how it decides seeded games at every seat count and option), with the sentence that names the version
to add when a version drifts from what it was released as."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engines.contract import AnyGame, GameConfig
from engines.playout import Chooser, play, random_chooser
from engines.registry import REGISTRY, Registry
from engines.rules import split_version

__all__ = ["GOLDEN", "RECORDED", "Fingerprint", "drift", "fingerprint", "golden_name", "next_version", "recorded"]

GOLDEN = Path(__file__).parent / "golden"
#: The fingerprint of every released rules version (entries are added, never changed).
RECORDED = GOLDEN / "versions.json"


def golden_name(game: AnyGame) -> str:
    """The file name of the golden transcript of ``game``'s rules version (``oldmen-1.txt``)."""
    name, number = split_version(game.spec.rules_version)
    return f"{name}-{number}.txt"


def next_version(game: AnyGame, registry: Registry = REGISTRY) -> str:
    """The rules version to add for a change of ``game``: one after the newest of its game."""
    newest = max(split_version(g.spec.rules_version)[1] for g in (*registry.versions(game.spec.name), game))
    return f"{game.spec.name}/{newest + 1}"


@dataclass(frozen=True)
class Fingerprint:
    """What a rules version was released as: the digest of its name, data and flags
    (``RulesVersion.fingerprint``), each data file's digest by path, its flags, and the digest of how it
    decides (:func:`behaviour_digest`)."""

    rules: str
    files: dict[str, str]
    flags: dict[str, str]
    behaviour: str


def fingerprint(game: AnyGame) -> Fingerprint:
    """``game``'s fingerprint as its code and data make it now."""
    version = game.rules.version
    files = {f.path: hashlib.sha256(f.canonical()).hexdigest() for f in version.files}
    return Fingerprint(version.fingerprint(), files, dict(version.flags), behaviour_digest(game))


def _configs(game: AnyGame) -> list[GameConfig]:
    """Every seat count with the default options, and every other option value at the most seats."""
    spec = game.spec
    configs = [spec.config(seats) for seats in range(spec.min_seats, spec.max_seats + 1)]
    for option in spec.options:
        configs += [spec.config(spec.max_seats, {option.name: v}) for v in option.allowed if v != option.default]
    return configs


def behaviour_digest(game: AnyGame) -> str:
    """SHA-256 of seeded random games of ``game`` (:func:`_configs`): every event, and every legal command
    list the chooser picked from. A change in what the rules decide anywhere these games go changes it."""
    digest = hashlib.sha256()
    for index, config in enumerate(_configs(game)):
        seed = f"fingerprint-{index}".encode()
        playout = play(game, config, seed, _digesting(random_chooser(seed), digest))
        for event in playout.events:
            digest.update(event.SerializeToString(deterministic=True))
    return digest.hexdigest()


def _digesting(chooser: Chooser, digest: Any) -> Chooser:
    def choose(game: AnyGame, state: Any, pending: list[int]) -> tuple[int, Any]:
        for seat in pending:
            for command in game.legal_commands(state, seat):
                digest.update(command.SerializeToString(deterministic=True))
        return chooser(game, state, pending)

    return choose


def recorded() -> dict[str, Fingerprint]:
    """The fingerprints recorded in :data:`RECORDED`, by rules version."""
    if not RECORDED.exists():
        return {}
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    return {name: Fingerprint(**entry) for name, entry in data.items() if not name.startswith("_")}


def record(entries: Mapping[str, Fingerprint]) -> None:
    """Write :data:`RECORDED` with ``entries`` (sorted by version)."""
    data: dict[str, Any] = {
        "_comment": "The fingerprint of every released rules version. Entries are added when a version is "
        "released and never changed: a change of a version's data, flags or decisions needs a new version "
        "(engines/README.md, 'Adding a rules version').",
    }
    data |= {name: asdict(entries[name]) for name in sorted(entries, key=split_version)}
    RECORDED.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def drift(game: AnyGame, released: Fingerprint, now: Fingerprint, registry: Registry = REGISTRY) -> str | None:
    """The sentence saying how ``game`` differs from what its rules version was released as (``released``),
    and the version to add; None when it does not."""
    name, add = game.spec.rules_version, next_version(game, registry)
    paths = released.files.keys() | now.files.keys()
    changed = sorted(path for path in paths if released.files.get(path) != now.files.get(path))
    if changed:
        files = ", ".join(f"engines/{path}" for path in changed)
        what = f"its data file {files} differs from the one it was released with"
    elif released.flags != now.flags:
        what = f"its rule flags are {now.flags}, not {released.flags} as released"
    elif released.rules != now.rules:
        what = "its data files or flags differ from those it was released with"
    elif released.behaviour != now.behaviour:
        what = "it no longer decides the recorded seeded games as it did when released (the code changed what it does)"
    else:
        return None
    return (
        f"rules version {name} changed: {what}. A released rules version never changes, or earlier games would "
        f"be decided by other rules: keep {name} as it was and add {add} with the change (engines/README.md, "
        "'Adding a rules version')"
    )
