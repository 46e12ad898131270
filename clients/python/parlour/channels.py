"""Targets for one server or for several replicas of it (:func:`parlour.channel.open_channel` uses them).

``"host:port"`` opens a channel to that server. ``"a:port,b:port"`` opens one channel over all of them
with gRPC's ``round_robin`` policy (an ``ipv4:`` target; host names are resolved once, at open), so calls
are spread over the replicas and a replica that is down is skipped. Calls that fail with UNAVAILABLE are
sent again (see :data:`RETRIES`); with round robin the retry goes to another replica, and a command keeps
its command id, so it is never applied twice.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence

__all__ = ["RETRIES", "replicas_target", "split_addresses", "target_for"]

#: How many times a call that failed with UNAVAILABLE is sent again (on the next replica).
RETRIES = 4


def split_addresses(text: str) -> list[str]:
    """``a:1,b:2`` as ``["a:1", "b:2"]``. Raises ValueError naming an address without a port."""
    addresses = [part.strip() for part in text.split(",") if part.strip()]
    if not addresses:
        raise ValueError("give a server address as host:port")
    for address in addresses:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a server address must be host:port, not {address!r}")
    return addresses


def _ipv4(address: str) -> str:
    host, _, port = address.rpartition(":")
    info = socket.getaddrinfo(host, int(port), socket.AF_INET, socket.SOCK_STREAM)
    return f"{info[0][4][0]}:{port}"


def target_for(addresses: Sequence[str]) -> str:
    """The gRPC target for one address (itself) or several (``ipv4:a:p,b:p``)."""
    if len(addresses) == 1:
        return addresses[0]
    return "ipv4:" + ",".join(_ipv4(address) for address in addresses)


def replicas_target(text: str, tls: bool = False) -> tuple[str, list[tuple[str, str]]]:
    """The gRPC target and channel options for the address(es) in ``text``: several get ``round_robin``
    (and, over TLS, the first host name as the name the certificates must carry)."""
    addresses = split_addresses(text)
    if len(addresses) == 1:
        return addresses[0], []
    options = [("grpc.lb_policy_name", "round_robin")]
    if tls:
        options.append(("grpc.ssl_target_name_override", addresses[0].rpartition(":")[0]))
    return target_for(addresses), options
