"""The abilities of the 40 characters and the loot tokens, as small functions in dispatch tables."""
