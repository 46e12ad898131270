"""Old Men of the Forest (Martin Wallace, 2011) for 3-4 players, single game or two-game match.

``OLDMEN`` is the game under its newest rules version; ``engines.oldmen.versions.VERSIONS`` lists them all.
"""

from engines.oldmen.game import OldMen
from engines.oldmen.versions import VERSIONS

__all__ = ["OLDMEN", "OldMen"]

#: Old Men of the Forest under its newest rules version.
OLDMEN: OldMen = VERSIONS[-1]
