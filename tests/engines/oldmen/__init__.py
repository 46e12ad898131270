"""Rule tests of Old Men of the Forest (rules: shared/rules/old-men-of-the-forest.md)."""
