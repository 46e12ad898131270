"""``python -m service.health_probe [--port N]``: exit 0 when the local server reports SERVING over gRPC
health checking, 1 otherwise (used by the container's HEALTHCHECK)."""

from __future__ import annotations

import argparse
import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Check ``localhost:PORT`` (default ``$PARLOUR_GRPC_PORT`` or 50051) once, with a short deadline."""
    parser = argparse.ArgumentParser(prog="python -m service.health_probe", description=__doc__)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PARLOUR_GRPC_PORT", "50051")))
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for the answer")
    args = parser.parse_args(argv)
    with grpc.insecure_channel(f"localhost:{args.port}") as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=args.timeout)
        except grpc.RpcError as error:
            print(f"unhealthy: {error.code().name}", file=sys.stderr)
            return 1
    serving = reply.status == health_pb2.HealthCheckResponse.SERVING
    print("serving" if serving else "not serving")
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
