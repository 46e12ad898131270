"""Tests of ``parlour serve --workers N``: real worker processes sharing the ports and one Redis."""
