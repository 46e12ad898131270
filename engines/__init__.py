"""Pure, deterministic rules engines for Parlour's games.

Nothing in this package does I/O, reads a clock or uses global randomness. The shared contract lives in
:mod:`engines.contract`; each game is a package (``engines.oldmen``, ...); :mod:`engines.registry` lists
them.
"""
