"""Where the tests keep what each released rules version must go on doing (golden transcripts and
fingerprints under ``tests/golden/``), and the name of the version to add when one drifts."""

from __future__ import annotations

from pathlib import Path

from engines.contract import AnyGame
from engines.registry import REGISTRY, Registry
from engines.rules import split_version

__all__ = ["GOLDEN", "golden_name", "next_version"]

GOLDEN = Path(__file__).parent / "golden"


def golden_name(game: AnyGame) -> str:
    """The file name of the golden transcript of ``game``'s rules version (``oldmen-1.txt``)."""
    name, number = split_version(game.spec.rules_version)
    return f"{name}-{number}.txt"


def next_version(game: AnyGame, registry: Registry = REGISTRY) -> str:
    """The rules version to add for a change of ``game``: one after the newest of its game."""
    newest = max(split_version(g.spec.rules_version)[1] for g in (*registry.versions(game.spec.name), game))
    return f"{game.spec.name}/{newest + 1}"
