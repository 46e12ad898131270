"""Requests the HTTP parser itself refuses (a request line or header over aiohttp's 8 KiB limits, too many
headers, bytes that are not HTTP) answered like every other error: a status and a JSON ``ErrorDetail`` from
the one error table, not aiohttp's own ``400 text/plain``.

aiohttp answers such requests from its connection handler, before any route or middleware runs, with
``RequestHandler.handle_error``. :class:`JsonErrorsRunner` serves the application through a handler whose
``handle_error`` answers parse errors from the table (server failures keep aiohttp's own answer, which
the application's middleware has already turned into the table's ``server/internal`` whenever a route ran).
"""

from __future__ import annotations

from aiohttp import web, web_protocol, web_server
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong

from service.api.rest.calls import HttpError, error_body
from service.app.errors import ServiceError

__all__ = ["JsonErrorsRunner", "parse_error"]


def parse_error(exc: BaseException | None) -> ServiceError:
    """The table's error for a request the HTTP parser refused with ``exc``: an over-long request target is
    ``request/uri_too_long`` (414), an over-long header ``request/headers_too_large`` (431), anything else
    ``request/invalid`` (400); the sentence names the limit, never the client's bytes."""
    if isinstance(exc, LineTooLong):
        line, limit = exc.args[0], exc.args[1]
        if bytes(line[:1]) == b"/" or bytes(line[:4]).lower() == b"http":
            return ServiceError(
                "request/uri_too_long", f"the request line is over {limit} bytes: send a shorter path and query"
            )
        return ServiceError("request/headers_too_large", f"a header line is over {limit} bytes: send shorter headers")
    reason = exc.message if isinstance(exc, HttpProcessingError) and exc.message else "it is not valid HTTP/1.1"
    return ServiceError("request/invalid", f"the request cannot be read: {str(reason)[:120]}")


class _JsonErrorsHandler(web_protocol.RequestHandler):
    """aiohttp's connection handler, answering parse errors from the error table (see the module doc)."""

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """A parse error (a 4xx status from the parser) as the table's error in JSON; else aiohttp's own."""
        if status >= 500 or request.writer.output_size > 0:
            return super().handle_error(request, status, exc, message)
        error = parse_error(exc)
        body = error_body(HttpError.of(error))
        response = web.Response(status=error.kind.http_status, text=body, content_type="application/json")
        response.force_close()
        return response


class _JsonErrorsServer(web_server.Server):
    """aiohttp's server, making :class:`_JsonErrorsHandler` connection handlers."""

    def __call__(self) -> web_protocol.RequestHandler:
        return _JsonErrorsHandler(self, loop=self._loop, **self._kwargs)


class JsonErrorsRunner(web.AppRunner):
    """``web.AppRunner`` whose connections answer parse errors from the error table."""

    async def _make_server(self) -> web_server.Server:
        server = await super()._make_server()
        # The application's own server (its startup done, its handler arguments set), made to build our
        # connection handlers: aiohttp offers no argument for the class it builds them with.
        server.__class__ = _JsonErrorsServer
        return server
