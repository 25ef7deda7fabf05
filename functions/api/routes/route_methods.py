"""The methods the documented routes take on a path, from the API's own OpenAPI schema: the 405's Allow header, and
whether a request has a route at all before its body is judged (routes/input_policy.py)."""

from __future__ import annotations

import re

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

_route_patterns: list[tuple[re.Pattern[str], str]] = []
_concrete_paths: dict[str, list[str]] = {}  # a documented path without a {parameter} -> its methods


def allowed_methods(app: APIGatewayRestResolver, path: str) -> list[str]:
    """The methods the documented routes take on `path` (empty when no route has this path). A concrete path is
    matched before the templated ones, as OpenAPI says: /v1/documents/uploads is not /v1/documents/{doc_id}."""
    if not _route_patterns:
        for template, operations in (app.get_openapi_schema().paths or {}).items():
            pattern = re.compile("^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$")
            for method in ("get", "put", "post", "delete", "patch"):
                if getattr(operations, method, None) is not None:
                    _route_patterns.append((pattern, method.upper()))
                    if "{" not in template:
                        _concrete_paths.setdefault(template, []).append(method.upper())
    if path in _concrete_paths:
        return sorted(_concrete_paths[path])
    return sorted({method for pattern, method in _route_patterns if pattern.match(path)})
