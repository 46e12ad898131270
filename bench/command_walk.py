"""The walk of one SubmitCommand through the application: which files of ``service/app`` it enters, in order.

Usage: python bench/command_walk.py [--game NAME] [--json]

A server (build_app with an embedded Redis in a temporary directory) runs in this process; a game is
created and seated, a few commands warm the caches, then one more command is submitted with a profiler
on, as the gRPC and REST transports submit it (``Games.commands.submit``). It reports the application's
function calls; the entries into each application file (a call into one of its functions from another
file, or from outside the application; a coroutine or generator resuming where it waited is the same
entry going on, not a new one); the file stops (each time the walk is in another application file than
just before, returns included) and the returns to a file already left; and the files in the order they
were first entered. A command path that reads top to bottom enters each file once.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import sys
import tempfile
import uuid
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.bootstrap import build_app  # noqa: E402
from service.config import Settings  # noqa: E402
from service.logs import configure_logging  # noqa: E402

APP = str(ROOT / "service" / "app")
#: A frame of one of these kinds starting past its first instructions is resuming, not being called.
_SUSPENDABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR
_FIRST_INSTRUCTIONS = 8


class Walk:
    """A profile hook that follows the frames of ``service/app`` files."""

    def __init__(self) -> None:
        self.calls = 0
        self.files: list[str] = []
        self.entries: Counter[str] = Counter()
        self._stack: list[str] = []

    def __call__(self, frame: FrameType, event: str, _: Any) -> None:
        """Count a call into, and a return within, the application's files."""
        path = frame.f_code.co_filename
        if event not in ("call", "return") or not path.startswith(APP):
            return
        name = path[len(APP) + 1 :]
        if event == "call":
            self.calls += 1
            self._count_entry(frame, name)
            self._enter(name)
            self._stack.append(name)
        elif self._stack:
            self._stack.pop()
            if self._stack:
                self._enter(self._stack[-1])

    def _count_entry(self, frame: FrameType, name: str) -> None:
        resumed = frame.f_code.co_flags & _SUSPENDABLE and frame.f_lasti > _FIRST_INSTRUCTIONS
        caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
        if not resumed and caller != frame.f_code.co_filename:
            self.entries[name] += 1

    def _enter(self, name: str) -> None:
        if not self.files or self.files[-1] != name:
            self.files.append(name)

    def figures(self) -> dict[str, Any]:
        """Calls, entries by file, file stops, returns to a file already left, and the files in order of
        first entry."""
        seen: set[str] = set()
        returns = 0
        for name in self.files:
            returns += name in seen
            seen.add(name)
        return {
            "calls": self.calls,
            "entries": dict(self.entries),
            "files_entered_more_than_once": {name: n for name, n in self.entries.items() if n > 1},
            "file_stops": len(self.files),
            "returns": returns,
            "files": list(dict.fromkeys(self.files)),
        }


async def walk(game: str) -> dict[str, Any]:
    """Play a few commands of ``game``, then walk one more."""
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(grpc_port=0, http_port=0, data_dir=Path(data), log_level="warning")
        app = build_app(settings)
        await app.start()
        try:
            games = app.games
            summary = await games.create_game(game, 3, {}, None)
            tokens = dict([await games.claim_seat(summary.game_id, seat, f"p{seat}") for seat in range(3)])
            profile = Walk()
            for attempt in range(4):
                spectator = await games.get_view(summary.game_id, None, None)
                seat = spectator.pending_seats[0]
                view = await games.get_view(summary.game_id, seat, tokens[seat])
                if attempt == 3:
                    sys.setprofile(profile)
                try:
                    await games.commands.submit(
                        summary.game_id,
                        seat,
                        tokens[seat],
                        view.legal_commands[0],
                        expected_version=view.version,
                        command_id=uuid.uuid4().hex,
                    )
                finally:
                    sys.setprofile(None)
        finally:
            await app.stop(grace=0)
    return profile.figures()


def main() -> int:
    """Parse the arguments, walk, print."""
    parser = argparse.ArgumentParser(description="The walk of one SubmitCommand (see the module docstring).")
    parser.add_argument("--game", default="oldmen", help="the game (default oldmen)")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args()
    configure_logging("warning", json=True)
    figures = asyncio.run(walk(args.game))
    print(f"application calls: {figures['calls']}")
    entries = figures["entries"]
    print(f"application files entered: {len(entries)}, entries: {sum(entries.values())}")
    again = figures["files_entered_more_than_once"]
    print("entered more than once: " + (", ".join(f"{name} ({n}x)" for name, n in again.items()) or "none"))
    print(f"file stops: {figures['file_stops']}, returns to a file already left: {figures['returns']}")
    print("files, in order of first entry: " + " → ".join(figures["files"]))
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
