"""The standing ladder: who plays whom among the free bots (``matching``). The ratings it ranks by are
the SDK's (:mod:`parlour.ratings`), so that anyone can recompute them offline."""
