"""``python -m service.health_probe [--port N] [--ready]``: the container's health and readiness probe.

Health (the default): exit 0 when the local server answers gRPC health checking, 1 otherwise (the
Dockerfile's HEALTHCHECK); a server that answers NOT_SERVING (its Redis is away: it reports so until Redis
is back) is alive, so it is not restarted for Redis's outage. Readiness (``--ready``): SERVING, and one
small call that reads Redis
(``ListGames`` with a page of one), so a replica that is up but cannot reach its Redis is taken out of a
load balancer's rotation (the compose file in ``deploy/`` uses it). A server started with ``--tls-cert``
is probed with ``--tls`` (or ``PARLOUR_TLS=1``), ``--ca-file`` and, when its certificate is not for
``localhost``, ``--server-name``.
"""

from __future__ import annotations

import argparse
import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from parlour.channel import add_tls_arguments, tls_of

__all__ = ["main"]


def _ready(channel: grpc.Channel, timeout: float) -> str:
    """ "" when a call that reads Redis succeeds, else why not."""
    from parlour.v1 import game_service_pb2, game_service_pb2_grpc

    try:
        game_service_pb2_grpc.GameServiceStub(channel).ListGames(
            game_service_pb2.ListGamesRequest(page_size=1), timeout=timeout
        )
    except grpc.RpcError as error:
        return f"not ready: {error.code().name}: {error.details()}"
    return ""


def _channel(args: argparse.Namespace) -> grpc.Channel:
    """A channel to the local server: plain text, or TLS with ``--tls`` / ``--ca-file``."""
    target = f"localhost:{args.port}"
    tls = tls_of(args)
    if tls is None:
        return grpc.insecure_channel(target)
    options = [("grpc.ssl_target_name_override", args.server_name)] if args.server_name else []
    return grpc.secure_channel(target, tls.credentials(), options=options)


def main(argv: list[str] | None = None) -> int:
    """Check ``localhost:PORT`` (default ``$PARLOUR_GRPC_PORT`` or 50051) once, with a short deadline."""
    parser = argparse.ArgumentParser(prog="python -m service.health_probe", description=__doc__)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PARLOUR_GRPC_PORT", "50051")))
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for each answer")
    parser.add_argument("--ready", action="store_true", help="also check that the server can read its Redis")
    add_tls_arguments(parser)
    parser.add_argument(
        "--server-name", default=None, help="with TLS: the name the certificate is for, when it is not localhost"
    )
    args = parser.parse_args(argv)
    with _channel(args) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=args.timeout)
        except grpc.RpcError as error:
            print(f"unhealthy: {error.code().name}", file=sys.stderr)
            return 1
        if reply.status != health_pb2.HealthCheckResponse.SERVING:
            if not args.ready:  # alive: it answers, and says it cannot serve now (its Redis is away)
                print("alive, not serving: its store is not reachable or it is stopping")
                return 0
            print(
                "not ready: the server says NOT_SERVING (its store is not reachable, or it is stopping)",
                file=sys.stderr,
            )
            return 1
        problem = _ready(channel, args.timeout) if args.ready else ""
    if problem:
        print(problem, file=sys.stderr)
        return 1
    print("ready" if args.ready else "serving")
    return 0


if __name__ == "__main__":
    sys.exit(main())
