"""A serving process's heap and the cyclic garbage collector.

Every full collection walks every object the collector tracks, and the event loop answers nothing
meanwhile. Most of a new server's objects (its modules, the protobuf descriptors, the application just
built) live as long as the process, yet each full collection would walk them again: about 90,000 objects,
a pause of tens of milliseconds, before any game is held. :func:`settle_start_up` moves them out of the
collector's generations once the server has started, as pre-forking servers do.
"""

from __future__ import annotations

import gc

__all__ = ["settle_start_up"]


def settle_start_up() -> None:
    """Collect once, then leave every object alive now out of later collections (``gc.freeze``): call it
    when a serving process has started, never in a process that keeps building and dropping servers (such
    objects are still freed when no longer referenced, but a cycle among them would not be)."""
    gc.collect()
    gc.freeze()
