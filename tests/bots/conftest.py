"""Bot tests use the tournament tests' server with an admin key."""

from tests.tournaments.conftest import admin_app

__all__ = ["admin_app"]
