"""Errors an engine raises. Every message is one sentence a person understands, told from the actor's
own point of view, and never reveals hidden information."""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "GameError",
    "GameOverError",
    "IllegalCommandError",
    "MalformedCommandError",
    "NotYourTurnError",
]


class GameError(Exception):
    """Base of every rule error. ``str(error)`` is the sentence shown to the player."""


class ConfigError(GameError):
    """The seat count or an option value is not allowed for this game."""


class MalformedCommandError(GameError):
    """The command cannot be understood (no kind set, a value out of its type's range)."""


class IllegalCommandError(GameError):
    """The command is understood, but the rules do not allow it now."""


class NotYourTurnError(IllegalCommandError):
    """The seat is not among the seats that must act now."""


class GameOverError(IllegalCommandError):
    """The game has ended and takes no more commands."""
