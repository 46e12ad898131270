"""Verräter (Traitor; Casasola Merkle, 1998) for 3-5 players, with the NGO edition's five-player cards.

``VERRAETER`` is the game under its newest rules version; ``engines.verraeter.versions.VERSIONS`` lists them
all.
"""

from engines.verraeter.game import Verraeter
from engines.verraeter.versions import VERSIONS

__all__ = ["VERRAETER", "Verraeter"]

#: Verräter under its newest rules version.
VERRAETER: Verraeter = VERSIONS[-1]
