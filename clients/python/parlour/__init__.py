"""Parlour's Python SDK: a client for Parlour game servers, bots, and the ``parlour`` command line.

The generated wire contract lives in :mod:`parlour.v1` (made from ``proto/`` by ``make proto``).
"""
