"""The client's address behind a proxy (``parlour serve --trusted-proxies``).

Quotas count a client by its address. Behind a load balancer every connection comes from the balancer,
so when the direct peer is one of the trusted proxies the address is taken from ``X-Forwarded-For`` (the
HTTP header for REST, the ``x-forwarded-for`` metadata for gRPC): the right-most address in it that is
not itself a trusted proxy, since each trusted proxy appends the address it was connected from and
anything left of that was written by the client. From any other peer the header is ignored, so a client
cannot pick its own quota by sending one. With no trusted proxies (the default) the header is never read.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["TrustedProxies", "forwarded_values"]

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class TrustedProxies:
    """The networks whose connections may say, in ``X-Forwarded-For``, whom they forward."""

    networks: tuple[_Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> TrustedProxies:
        """``CIDR[,CIDR...]`` (a bare address is one host; empty: none). Raises ValueError naming the part
        that is not a network."""
        networks: list[_Network] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                text = "--trusted-proxies takes networks like 10.0.0.0/8 or 127.0.0.1, comma-separated"
                raise ValueError(f"{text}; {part!r} is not one") from None
        return cls(tuple(networks))

    def trusts(self, address: str) -> bool:
        """Whether ``address`` (an IP address as text) is in one of the trusted networks."""
        parsed = _address(address)
        return parsed is not None and self._trusted(parsed)

    def client_address(self, peer: str, forwarded: Iterable[str]) -> str:
        """The address quotas count: ``peer``'s own, unless ``peer`` is a trusted proxy and
        ``forwarded`` (the values of every ``X-Forwarded-For`` header, in order) names the client."""
        if not self.networks or not self.trusts(peer):
            return peer
        hops = [hop.strip() for value in forwarded for hop in value.split(",")]
        chosen = peer
        for hop in reversed(hops):
            address = _address(hop)
            if address is None:  # not written by a trusted proxy: nothing left of it can be believed
                break
            chosen = str(address)
            if not self._trusted(address):
                break
        return chosen

    def _trusted(self, address: _Address) -> bool:
        return any(address.version == network.version and address in network for network in self.networks)


def _address(text: str) -> _Address | None:
    """The IP address of ``text`` ("1.2.3.4", "1.2.3.4:80", "::1", "[::1]:80"); an IPv4 address mapped
    into IPv6 is the IPv4 address; None for anything else."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def forwarded_values(pairs: Iterable[tuple[str, Any]]) -> list[str]:
    """The values of the ``x-forwarded-for`` entries of gRPC metadata, in order."""
    return [value for key, value in pairs if key == "x-forwarded-for" and isinstance(value, str)]
