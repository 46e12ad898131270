"""Verräter (Traitor; Casasola Merkle, 1998) for 3-5 players, with the NGO edition's five-player cards."""

from engines.verraeter.game import VERRAETER, Verraeter

__all__ = ["VERRAETER", "Verraeter"]
