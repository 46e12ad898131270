"""The rules versions of Old Men of the Forest, oldest first (see engines/rules.py and engines/README.md).

Each is a game object built from its own data file; a released version never changes. ``OLDMEN`` (in
``engines.oldmen``) is the newest.
"""

from __future__ import annotations

from engines.oldmen.data import load_rules
from engines.oldmen.game import OldMen

__all__ = ["VERSIONS"]

VERSIONS: tuple[OldMen, ...] = (
    # The proposed orangutan table of shared/rules/old-men-of-the-forest.md section 1.2.
    OldMen(load_rules("oldmen/1", file="orangutans.json")),
)
