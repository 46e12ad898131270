"""Old Men of the Forest (Martin Wallace, 2011) for 3-4 players, single game or two-game match."""

from engines.oldmen.game import OLDMEN, OldMen

__all__ = ["OLDMEN", "OldMen"]
