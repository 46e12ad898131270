"""Tests of the rules engines."""
