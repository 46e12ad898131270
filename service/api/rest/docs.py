"""The OpenAPI document rendered for people: Swagger UI, from the copy the ``swagger-ui-py`` package ships
(nothing is fetched from another site), served by the server at ``/docs`` and put in the documentation
site."""

from __future__ import annotations

from importlib import resources

__all__ = ["SWAGGER_FILES", "swagger_file", "swagger_page"]

#: The files of Swagger UI a page needs, served beside it.
SWAGGER_FILES = ("swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js")


def swagger_file(name: str) -> bytes:
    """The content of one of :data:`SWAGGER_FILES` (KeyError for any other name)."""
    if name not in SWAGGER_FILES:
        raise KeyError(name)
    return resources.files("swagger_ui").joinpath("static", name).read_bytes()


def swagger_page(document_url: str) -> str:
    """A page that renders the OpenAPI document at ``document_url`` with Swagger UI, its files next to it."""
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Parlour API</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="swagger-ui.css"></head>
<body>
<div id="ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="swagger-ui-standalone-preset.js"></script>
<script>
SwaggerUIBundle({{url: "{document_url}", dom_id: "#ui", deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "BaseLayout"}});
</script>
</body>
</html>
"""
