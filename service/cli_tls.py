"""The TLS flags of ``parlour serve``: one certificate and key for gRPC and HTTPS."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from service.api.tls import TlsFiles

__all__ = ["add_tls_flags", "tls_overrides"]


def add_tls_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--tls-cert`` and ``--tls-key``."""
    group = parser.add_argument_group("TLS")
    group.add_argument(
        "--tls-cert", metavar="FILE", default=None, help="PEM certificate chain: serve gRPC and HTTPS with TLS"
    )
    group.add_argument("--tls-key", metavar="FILE", default=None, help="PEM private key of --tls-cert")


def tls_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The Settings fields of the TLS flags; raises SystemExit with a sentence when only one is given or
    the files are not a certificate and its key."""
    if args.tls_cert is None and args.tls_key is None:
        return {}
    if args.tls_cert is None or args.tls_key is None:
        raise SystemExit("parlour serve: --tls-cert and --tls-key go together; give both or neither")
    files = TlsFiles(Path(args.tls_cert), Path(args.tls_key))
    try:
        files.check()
    except ValueError as error:
        raise SystemExit(f"parlour serve: {error}") from None
    return {"tls_cert": files.cert, "tls_key": files.key}
