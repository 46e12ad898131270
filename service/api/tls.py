"""TLS for both transports from one certificate: gRPC server credentials and the HTTP server's SSL
context, read from a PEM certificate chain and its private key (``parlour serve --tls-cert --tls-key``)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

__all__ = ["TlsFiles"]


@dataclass(frozen=True)
class TlsFiles:
    """A certificate chain and its private key, both PEM files."""

    cert: Path
    key: Path

    def check(self) -> None:
        """Raise ValueError with a sentence when the files cannot be read or do not make a certificate
        with its key."""
        for name, path in (("--tls-cert", self.cert), ("--tls-key", self.key)):
            if not path.is_file():
                raise ValueError(f"{name} {path} is not a file")
        try:
            self.ssl_context()
        except (ssl.SSLError, OSError) as error:
            raise ValueError(
                f"--tls-cert {self.cert} and --tls-key {self.key} are not a PEM certificate and its key: {error}"
            ) from error

    def grpc_credentials(self) -> grpc.ServerCredentials:
        """Server credentials for a gRPC port."""
        return grpc.ssl_server_credentials([(self.key.read_bytes(), self.cert.read_bytes())])

    def ssl_context(self) -> ssl.SSLContext:
        """An SSL context for an HTTPS server (TLS 1.2 or newer)."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert, self.key)
        return context
