"""Transports: thin translators between the wire and :mod:`service.app`."""
