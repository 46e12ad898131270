"""The HTTP server: REST/JSON routes of gRPC services, their OpenAPI document, and the web page.

Every request is answered in JSON, errors included: an ErrorDetail (``reason`` and ``message``) with the
status of the one error table. Requests to a route that does not exist get 404 with reason
``http/not_found``, a wrong verb 405 with ``http/method_not_allowed`` (REST-only reasons of the table).
A body over the size limit gets 413 ``request/too_large``, a body or query that does not fit the request
message 400 ``request/invalid``. An unexpected failure is a 500 with reason ``server/internal`` and no
details (they go to the log). Every reason sent is one of the table, with the table's status.

Responses allow any origin (CORS), since the token travels in a header, not a cookie.
"""

from __future__ import annotations

import json
import mimetypes
import ssl
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web
from google.protobuf.descriptor import ServiceDescriptor

from service import metrics
from service.api import request_ids
from service.api.forwarded import TrustedProxies
from service.api.ports import unavailable
from service.api.request_sizes import RequestSizes
from service.api.rest.calls import (
    CallAbortedError,
    HttpCallContext,
    HttpError,
    call_stream,
    call_unary,
    encode_json,
    error_body,
)
from service.api.rest.comments import proto_comments
from service.api.rest.docs import SWAGGER_FILES, swagger_file, swagger_page
from service.api.rest.openapi import openapi_document
from service.api.rest.parse_errors import JsonErrorsRunner
from service.api.rest.routes import Route, decode_request, routes_of
from service.api.rest.sse import RESUMABLE, FrameCache, resume_request, stream_events
from service.app.bounds import request_bounds
from service.app.errors import SERVER_FAILED, ServiceError, from_failure
from service.app.gate import Gate
from service.app.limits import Client, Limits
from service.app.time_control import ClockRange

__all__ = ["HttpServer", "MetricsPage", "build_http_server", "build_metrics_server", "metrics_handler"]

log = structlog.get_logger("parlour.http")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_REQUEST_ID = web.RequestKey("request_id", str)
#: The text of ``/metrics`` (see :func:`service.metrics.render`).
MetricsPage = Callable[[], Awaitable[bytes]]
_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Headers": (
        "Authorization, Content-Type, Last-Event-ID, X-Parlour-Admin-Key, X-Parlour-Bot-Key, X-Request-Id, "
        "X-Parlour-Api-Key"
    ),
    "Access-Control-Expose-Headers": "X-Request-Id",
    "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "Access-Control-Max-Age": "3600",
}


def _json_error(error: HttpError) -> web.Response:
    return web.Response(status=error.status, text=error_body(error), content_type="application/json")


async def _respond_error(error: HttpError) -> web.StreamResponse:
    return _json_error(error)


def _bearer(request: web.Request) -> str | None:
    return request.headers.get("Authorization")


#: Headers passed to the handlers as gRPC metadata of the same (lower-case) name.
_METADATA_HEADERS = ("x-parlour-admin-key", "x-parlour-bot-key", "x-parlour-api-key")


def _metadata(request: web.Request) -> list[tuple[str, str]]:
    return [(name, request.headers[name]) for name in _METADATA_HEADERS if name in request.headers]


@dataclass(frozen=True)
class _Settings:
    #: The largest body of each route's call (by its method).
    body_sizes: RequestSizes
    heartbeat: float
    first_reply_grace: float
    gate: Gate
    #: Whose X-Forwarded-For names the client (see ``service.api.forwarded``).
    proxies: TrustedProxies
    #: SSE frames shared by the streams of this server (replies shared by watchers are encoded once).
    frames: FrameCache = field(default_factory=FrameCache)


def _handler(route: Route, servicer: object, settings: _Settings) -> Handler:
    """The aiohttp handler of one route: decode, call the servicer's method, encode."""
    name = route.method.name
    resume = RESUMABLE.get(route.method.full_name)
    call = ".".join(route.method.full_name.split(".")[-2:])

    async def guarded(request: web.Request) -> web.StreamResponse:
        """The call, within the client's quotas (see ``service.app.limits``)."""
        address = settings.proxies.client_address(
            request.remote or "unknown", request.headers.getall("X-Forwarded-For", [])
        )
        client = Client(address, request.headers.get("x-parlour-api-key", ""))
        async with settings.gate.enter(call, client):
            return await handle(request)

    limit = settings.body_sizes.of(route.method.full_name)
    too_large = ServiceError("request/too_large", f"the body may be at most {limit} bytes")

    async def handle(request: web.Request) -> web.StreamResponse:
        if request.content_length is not None and request.content_length > limit:
            raise too_large
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge as error:
            raise too_large from error
        if len(body) > limit:
            raise too_large
        query = {key: request.query.getall(key) for key in request.query}
        message = decode_request(route, request.match_info, query, body)
        context = HttpCallContext(_bearer(request), _metadata(request))
        if not route.server_streaming:
            reply = await call_unary(servicer, name, message, context)
            return web.Response(text=encode_json(reply), content_type="application/json")
        if resume is not None:
            resume_request(message, resume, request.headers.get("Last-Event-ID"))
        replies = call_stream(servicer, name, message, context)
        with metrics.open_stream(name, "rest"):
            return await stream_events(
                request,
                replies,
                resume,
                heartbeat=settings.heartbeat,
                first_reply_grace=settings.first_reply_grace,
                on_error=_respond_error,
                frames=settings.frames,
            )

    return guarded


@web.middleware
async def _request_id(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A request id for every request, in its log lines and (see ``_send_request_id``) its response."""
    request_id = request_ids.choose((name.lower(), value) for name, value in request.headers.items())
    request[_REQUEST_ID] = request_id
    with request_ids.bound(request_id):
        return await handler(request)


async def _send_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """Put the request id in the ``X-Request-Id`` header, also of streams (their headers go out early)."""
    if _REQUEST_ID in request:
        response.headers["X-Request-Id"] = request[_REQUEST_ID]


def metrics_handler(page: MetricsPage) -> Handler:
    """The ``/metrics`` handler: ``page()`` in the Prometheus text format."""

    async def serve(_: web.Request) -> web.Response:
        return web.Response(body=await page(), headers={"Content-Type": metrics.CONTENT_TYPE})

    return serve


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure as a JSON ErrorDetail; CORS headers on every response."""
    if request.method == "OPTIONS":
        return web.Response(status=204, headers=_CORS)
    try:
        response = await handler(request)
    except ServiceError as error:
        log.info("request rejected", path=request.path, reason=error.reason)  # never the sentence (see logs.py)
        response = _json_error(HttpError.of(error))
    except CallAbortedError as aborted:
        response = _json_error(aborted.error)
    except web.HTTPMethodNotAllowed as error:
        allowed = ", ".join(sorted(error.allowed_methods))
        text = f"{request.method} is not allowed on {request.path}; use {allowed}"
        response = _json_error(HttpError.of(ServiceError("http/method_not_allowed", text)))
        response.headers["Allow"] = allowed
    except web.HTTPNotFound:
        text = f"there is no route {request.path}; /openapi.json lists the routes"
        response = _json_error(HttpError.of(ServiceError("http/not_found", text)))
    except web.HTTPException as error:
        response = _json_error(HttpError.of(_http_exception(error)))
    except Exception as failure:
        known = from_failure(failure)
        if known is None:
            log.exception("request failed", path=request.path)
            known = ServiceError("server/internal", SERVER_FAILED)
        response = _json_error(HttpError.of(known))
    if not response.prepared:
        response.headers.update(_CORS)
    return response


def _http_exception(error: web.HTTPException) -> ServiceError:
    """Any other refusal of aiohttp's, as the table's reason for it."""
    if error.status == 413:
        return ServiceError("request/too_large", "the request is larger than this server accepts")
    if 400 <= error.status < 500:
        return ServiceError("request/invalid", f"the HTTP request was refused: {error.reason.lower()}")
    return ServiceError("server/internal", SERVER_FAILED)


def _static(web_dir: Path) -> Handler:
    """Files of the web page; ``/`` is ``index.html``. Paths leaving ``web_dir`` are not found."""
    root = web_dir.resolve()

    async def serve(request: web.Request) -> web.StreamResponse:
        relative = request.match_info.get("path", "") or "index.html"
        target = (root / relative).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            raise web.HTTPNotFound()
        content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return web.FileResponse(target, headers={"Cache-Control": "no-cache", "Content-Type": content_type})

    return serve


@dataclass
class HttpServer:
    """A built HTTP server; ``port`` is the bound port once started (useful when asked for port 0)."""

    app: web.Application
    host: str
    port: int
    routes: list[Route] = field(default_factory=list)
    #: The command-line flag that sets the port (named when the port cannot be bound).
    flag: str = "--http-port"
    #: HTTPS with this context (``parlour serve --tls-cert``); None: plain HTTP.
    ssl_context: ssl.SSLContext | None = None
    #: Share the port with the sibling workers of one ``parlour serve --workers N`` (``SO_REUSEPORT``;
    #: their parent checked that it was free: see ``service.api.ports``); otherwise a taken port is refused.
    reuse_port: bool = False
    _runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Bind and start serving; a port that cannot be bound raises PortUnavailableError."""
        self._runner = JsonErrorsRunner(self.app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=self.ssl_context, reuse_port=self.reuse_port)
        try:
            await site.start()
        except OSError as error:
            await self.stop()
            raise unavailable("HTTP", self.host, self.port, self.flag, error) from error
        bound = self._runner.addresses[0]
        self.port = int(bound[1])

    async def stop(self, grace: float = 2.0) -> None:
        """Stop serving (open event streams are closed)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def _add_docs(app: web.Application) -> None:
    """``/docs/``: the OpenAPI document rendered with Swagger UI (its files served beside the page)."""
    page = swagger_page("/openapi.json")

    async def docs(_: web.Request) -> web.Response:
        return web.Response(text=page, content_type="text/html")

    async def redirect(_: web.Request) -> web.Response:
        return web.Response(status=308, headers={"Location": "/docs/"})

    app.router.add_get("/docs", redirect)
    app.router.add_get("/docs/", docs)
    for name in SWAGGER_FILES:
        body, kind = swagger_file(name), "text/css" if name.endswith(".css") else "text/javascript"
        app.router.add_get(f"/docs/{name}", _fixed(body, kind))


def _fixed(body: bytes, content_type: str) -> Handler:
    """A handler that always answers ``body`` (cacheable: it changes only with the installed package)."""

    async def handler(_: web.Request) -> web.Response:
        return web.Response(body=body, content_type=content_type, headers={"Cache-Control": "max-age=86400"})

    return handler


def build_http_server(
    services: Sequence[tuple[ServiceDescriptor, object]],
    *,
    host: str,
    port: int,
    body_sizes: RequestSizes,
    web_dir: Path | None = None,
    heartbeat: float = 15.0,
    first_reply_grace: float = 0.5,
    metrics_page: MetricsPage | None = None,
    gate: Gate | None = None,
    ready: Callable[[], bool] = lambda: True,
    proxies: TrustedProxies | None = None,
    bounds: Mapping[str, dict[str, Any]] | None = None,
) -> HttpServer:
    """An HTTP server for ``services`` (each a service descriptor and the object whose methods serve it,
    e.g. the gRPC servicer), with ``/openapi.json``, ``/metrics`` when ``metrics_page`` is given and,
    when ``web_dir`` is given, its files at ``/``. A call's body may have as many bytes as ``body_sizes``
    gives its method. Every route's call passes ``gate`` (API keys and quotas;
    default quotas when None). ``GET /readyz`` answers 200 SERVING while ``ready()`` is true, else 503
    NOT_SERVING. A client is counted by its address, or by the one ``X-Forwarded-For`` gives when it
    comes through one of ``proxies``. ``bounds`` are the limits the document states
    (``service.app.bounds.request_bounds`` of the server's settings; by default of the default clock range
    and sizes). Not started: call ``start()``."""
    settings = _Settings(body_sizes, heartbeat, first_reply_grace, gate or Gate(Limits()), proxies or TrustedProxies())
    app = web.Application(middlewares=[_request_id, _errors], client_max_size=body_sizes.largest)
    app.on_response_prepare.append(_send_request_id)
    if metrics_page is not None:
        app.router.add_get("/metrics", metrics_handler(metrics_page))
    routes: list[Route] = []
    for descriptor, servicer in services:
        for route in routes_of(descriptor):
            app.router.add_route(route.verb, route.aiohttp_path, _handler(route, servicer, settings))
            routes.append(route)
    bounds = request_bounds(ClockRange()) if bounds is None else bounds
    document = openapi_document(routes, title="Parlour", version="v1", comments=proto_comments(), bounds=bounds)
    openapi_text = json.dumps(document, indent=1)

    async def openapi(_: web.Request) -> web.Response:
        return web.Response(text=openapi_text, content_type="application/json")

    app.router.add_get("/openapi.json", openapi)
    _add_docs(app)

    async def readiness(_: web.Request) -> web.Response:
        serving = ready()
        body = json.dumps({"status": "SERVING" if serving else "NOT_SERVING"})
        return web.Response(text=body, status=200 if serving else 503, content_type="application/json")

    app.router.add_get("/readyz", readiness)
    if web_dir is not None:
        serve = _static(web_dir)
        app.router.add_get("/", serve)
        app.router.add_get("/{path:(?!v1/).+}", serve)
    return HttpServer(app=app, host=host, port=port, routes=routes)


def build_metrics_server(*, host: str, port: int, page: MetricsPage) -> HttpServer:
    """An HTTP server with only ``/metrics`` (for ``--metrics-port``). Not started: call ``start()``."""
    app = web.Application()
    app.router.add_get("/metrics", metrics_handler(page))
    return HttpServer(app=app, host=host, port=port, flag="--metrics-port")
