"""Opening a gRPC channel to a Parlour server, in plain text or over TLS, to one address or to several
replicas (``host:port,host:port``: see :mod:`parlour.channels`)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

import grpc

from parlour.channels import replicas_target

__all__ = ["Tls", "add_tls_arguments", "open_channel", "tls_of"]


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
