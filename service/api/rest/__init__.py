"""The REST/JSON transport: routes from ``google.api.http`` annotations, canonical JSON, Server-Sent
Events for server streams, an OpenAPI document, and the web page's files."""

from service.api.rest.server import HttpServer, build_http_server

__all__ = ["HttpServer", "build_http_server"]
