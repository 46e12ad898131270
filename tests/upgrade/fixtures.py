"""Games stored by an earlier release (``fixtures/README.md``), loaded into a test's Redis as that release
left them."""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from parlour.v1 import replay_service_pb2
from tests.conftest import client_for

__all__ = ["FixtureGame", "Release", "restore"]

FIXTURES = Path(__file__).parent / "fixtures"
#: The key prefix the earlier release wrote under.
_PREFIX = b"parlour:"


@dataclass(frozen=True)
class FixtureGame:
    """A game the earlier release stored: its id, name, status then (finished or running) and seat tokens."""

    game_id: str
    game: str
    status: str
    version: int
    tokens: dict[int, str]

    @property
    def running(self) -> bool:
        """Whether the game was still running when the earlier release stopped."""
        return self.status == "running"


@dataclass(frozen=True)
class Release:
    """What an earlier release left: its games, its Redis keys and its exports of the finished games."""

    games: tuple[FixtureGame, ...]
    keys: tuple[dict[str, Any], ...]
    exports: dict[str, replay_service_pb2.GameExport]


@cache
def _load(name: str) -> Release:
    with gzip.open(FIXTURES / name, "rt", encoding="utf-8") as file:
        data = json.load(file)
    games = tuple(
        FixtureGame(g["game_id"], g["game"], g["status"], g["version"], {int(s): t for s, t in g["tokens"].items()})
        for g in data["games"]
    )
    exports = {
        game_id: json_format.ParseDict(export, replay_service_pb2.GameExport())
        for game_id, export in data["exports"].items()
    }
    return Release(games, tuple(data["keys"]), exports)


def earlier_release() -> Release:
    """The games of the release before ``libertalia/2``."""
    return _load("before-libertalia-2.json.gz")


def _b(text: str) -> bytes:
    return base64.b64decode(text)


async def restore(url: str, prefix: str, release: Release) -> None:
    """Write the release's keys into the Redis at ``url``, under ``prefix`` instead of ``parlour``."""
    client = client_for(url)
    try:
        for entry in release.keys:
            key = prefix.encode() + b":" + _b(entry["key"]).removeprefix(_PREFIX)
            await _write(client, key, entry)
    finally:
        await client.aclose()


async def _write(client: Any, key: bytes, entry: dict[str, Any]) -> None:
    kind = entry["type"]
    if kind == "stream":
        for entry_id, fields in entry["entries"]:
            await client.xadd(key, {_b(f): _b(v) for f, v in fields.items()}, id=entry_id)
    elif kind == "hash":
        await client.hset(key, mapping={_b(f): _b(v) for f, v in entry["fields"].items()})
    elif kind == "zset":
        await client.zadd(key, {_b(member): score for member, score in entry["members"]})
    elif kind == "set":
        await client.sadd(key, *[_b(m) for m in entry["members"]])
    elif kind == "string":
        await client.set(key, _b(entry["value"]))
    else:
        raise ValueError(f"a fixture key of type {kind!r} cannot be restored")
