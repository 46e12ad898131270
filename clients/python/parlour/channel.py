"""Opening a gRPC channel to a Parlour server, in plain text or over TLS, to one address or to several
replicas (``host:port,host:port``: see :mod:`parlour.channels`), and the API key a client sends with its
calls (``x-parlour-api-key``; a server run with ``--require-api-key`` wants one)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

import grpc

from parlour.channels import replicas_target

__all__ = [
    "API_KEY_ENV",
    "API_KEY_HEADER",
    "Tls",
    "add_api_key_argument",
    "add_tls_arguments",
    "api_key_metadata",
    "api_key_of",
    "api_key_or_env",
    "open_channel",
    "tls_of",
]

#: The metadata entry (over REST, the HTTP header) an API key travels in.
API_KEY_HEADER = "x-parlour-api-key"
#: The environment variable a client takes its API key from when none is given.
API_KEY_ENV = "PARLOUR_API_KEY"


@dataclass(frozen=True)
class Tls:
    """Connect over TLS, trusting the certificates of ``ca_file`` (a PEM file) or, when None, the
    system's root certificates."""

    ca_file: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        """Channel credentials; raises OSError when the CA file cannot be read."""
        roots = Path(self.ca_file).read_bytes() if self.ca_file else None
        return grpc.ssl_channel_credentials(root_certificates=roots)


def open_channel(target: str, tls: Tls | None = None) -> grpc.aio.Channel:
    """An asyncio channel to ``target`` ("host:port", or several replicas "host:port,host:port" spread
    with round robin): plain text, or TLS with ``tls``."""
    grpc_target, options = replicas_target(target, tls is not None)
    if tls is None:
        return grpc.aio.insecure_channel(grpc_target, options=options)
    return grpc.aio.secure_channel(grpc_target, tls.credentials(), options=options)


def add_tls_arguments(parser: argparse.ArgumentParser) -> None:
    """``--tls`` and ``--ca-file`` (defaults from PARLOUR_TLS=1 and PARLOUR_CA_FILE)."""
    parser.add_argument(
        "--tls",
        action="store_true",
        default=os.environ.get("PARLOUR_TLS") == "1",
        help="connect over TLS (or PARLOUR_TLS=1)",
    )
    parser.add_argument(
        "--ca-file",
        metavar="FILE",
        default=os.environ.get("PARLOUR_CA_FILE"),
        help="PEM certificates to trust for --tls (default: the system's); implies --tls",
    )


def tls_of(args: argparse.Namespace) -> Tls | None:
    """The TLS settings of parsed ``--tls`` / ``--ca-file`` arguments (None: plain text)."""
    ca_file = getattr(args, "ca_file", None)
    if ca_file or getattr(args, "tls", False):
        return Tls(ca_file)
    return None


def api_key_or_env(api_key: str | None) -> str:
    """``api_key`` when given, else the ``PARLOUR_API_KEY`` environment variable ("" for no key);
    surrounding whitespace (a key read from a file) is dropped."""
    return (os.environ.get(API_KEY_ENV, "") if api_key is None else api_key).strip()


def api_key_metadata(api_key: str) -> list[tuple[str, str]]:
    """The call metadata that sends ``api_key`` as ``x-parlour-api-key`` (none for "")."""
    return [(API_KEY_HEADER, api_key)] if api_key else []


def add_api_key_argument(parser: argparse.ArgumentParser) -> None:
    """``--api-key`` (default from PARLOUR_API_KEY)."""
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        default=os.environ.get(API_KEY_ENV),
        help="the API key the server's admin issued you, sent with every call as x-parlour-api-key (or "
        f"{API_KEY_ENV}); a server run with --require-api-key wants one to create games, claim seats and "
        "register a new bot name",
    )


def api_key_of(args: argparse.Namespace) -> str:
    """The API key of parsed ``--api-key`` arguments ("" for none)."""
    return api_key_or_env(getattr(args, "api_key", None) or "")
