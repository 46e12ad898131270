"""Asking a server whether it is ready, as an operator's probe does: gRPC health and ``GET /readyz``."""

from __future__ import annotations

import asyncio

import aiohttp
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.bootstrap import App


async def until_health(app: App, status: int) -> None:
    """Wait until the server's gRPC health reports ``status`` (the failure tests' servers ask their Redis
    every 50 ms); fail after about 20 s."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{app.grpc_port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for _ in range(400):
            reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
            if reply.status == status:
                return
            await asyncio.sleep(0.05)
    raise AssertionError(f"health never reported {status}")


async def readyz(app: App) -> tuple[int, str]:
    """The HTTP status and the ``status`` field of the server's ``GET /readyz``."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{app.http_port}/readyz") as response,
    ):
        return response.status, (await response.json())["status"]
