"""Rules versions: what names the exact rules a game is decided by.

A rules version (``oldmen/1``, ``libertalia/2``) is the engine code of a game together with every data
file that decides it and the rule flags that select between variants of the code. Each game lists its
versions in ``engines/<game>/versions.py``, oldest first; a game object is one version of one game, and
the state it folds carries that version's rules, so a game is decided, folded and viewed by the rules it
began under, whichever other versions the same process holds.

A released version never changes: its :meth:`RulesVersion.fingerprint` (data files and flags) and its
golden transcript are recorded under ``tests/golden/``, and a test fails, naming the version to add, when
either drifts. Correcting a data file or a rule means adding a version that differs from the previous one
only there (``engines/README.md``, "Adding a rules version").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

__all__ = ["DataFile", "RulesVersion", "data_file", "split_version"]


@dataclass(frozen=True)
class DataFile:
    """A data file that decides a game: its path under ``engines/`` and its exact bytes."""

    path: str
    content: bytes

    def text(self) -> str:
        """The file's content as UTF-8 text."""
        return self.content.decode("utf-8")

    def json(self) -> object:
        """The file's content parsed as JSON."""
        result: object = json.loads(self.content)
        return result

    def canonical(self) -> bytes:
        """What the fingerprint digests: a JSON file's data in canonical form (keys sorted, no spaces,
        ``_comment`` entries left out: a comment or a change of layout decides nothing), any other file's
        bytes as they are."""
        if not self.path.endswith(".json"):
            return self.content
        return json.dumps(_without_comments(self.json()), sort_keys=True, separators=(",", ":")).encode()


@dataclass(frozen=True)
class RulesVersion:
    """The identity of one rules version: its name, the data files that decide it and its rule flags
    (name, value; sorted by name). Two versions with the same files and flags may still differ in code,
    which their golden transcripts tell apart."""

    name: str
    files: tuple[DataFile, ...] = ()
    flags: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        split_version(self.name)  # raises ValueError for a malformed name
        if list(self.flags) != sorted(dict(self.flags).items()):
            raise ValueError(f"{self.name}: flags must be given once each, sorted by name")

    @property
    def game(self) -> str:
        """The game's name (``oldmen`` of ``oldmen/1``)."""
        return split_version(self.name)[0]

    @property
    def number(self) -> int:
        """The version's number (1 of ``oldmen/1``)."""
        return split_version(self.name)[1]

    def flag(self, name: str) -> str:
        """The value of rule flag ``name``; raises KeyError if this version has no such flag."""
        return dict(self.flags)[name]

    def file(self, path: str) -> DataFile:
        """The data file at ``path``; raises KeyError if this version has none there."""
        for data in self.files:
            if data.path == path:
                return data
        raise KeyError(f"{self.name} has no data file {path}")

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the name, each data file's path and content (:meth:`DataFile.canonical`), and
        the flags: what a released version must keep forever."""
        digest = hashlib.sha256(b"parlour-rules-v1\0" + self.name.encode() + b"\0")
        for data in sorted(self.files, key=lambda f: f.path):
            digest.update(data.path.encode() + b"\0" + hashlib.sha256(data.canonical()).digest())
        for name, value in self.flags:
            digest.update(f"flag:{name}={value}\0".encode())
        return digest.hexdigest()

    @classmethod
    def of(cls, name: str, files: tuple[DataFile, ...] = (), flags: Mapping[str, str] | None = None) -> RulesVersion:
        """A version with its flags sorted (``flags`` may be given in any order)."""
        return cls(name, files, tuple(sorted((flags or {}).items())))


def _without_comments(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_comments(v) for k, v in value.items() if k != "_comment"}
    if isinstance(value, list):
        return [_without_comments(v) for v in value]
    return value


def data_file(package: str, file: str) -> DataFile:
    """The data file ``file`` of the engine package ``package`` (``engines.oldmen``), read from the
    installed package."""
    content = resources.files(package).joinpath(file).read_bytes()
    folder = package.removeprefix("engines.").replace(".", "/")
    return DataFile(f"{folder}/{file}", content)


def split_version(name: str) -> tuple[str, int]:
    """``("oldmen", 1)`` of ``"oldmen/1"``; raises ValueError for anything else (a game name of lower-case
    letters, a slash, a number from 1)."""
    game, slash, number = name.partition("/")
    if not (slash and game.isascii() and game.isalpha() and game.islower() and number.isdigit()):
        raise ValueError(f"{name!r} is not a rules version: a game's name, a slash and a number, like 'oldmen/1'")
    if int(number) < 1 or number != str(int(number)):
        raise ValueError(f"{name!r} is not a rules version: versions are numbered from 1, like 'oldmen/1'")
    return game, int(number)
