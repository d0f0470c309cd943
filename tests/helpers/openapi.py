"""One small OpenAPI document (one operation, ``get_item``) for the tests of tools that fastmcp
builds from a document rather than from a registered function."""

from __future__ import annotations

import pprint
from typing import Any

ITEMS_SPEC: dict[str, Any] = {
    "openapi": "3.0.0",
    "info": {"title": "demo", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/items/{item_id}": {
            "get": {
                "operationId": "get_item",
                "parameters": [
                    {
                        "name": "item_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                    }
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def spec_module() -> str:
    """Python source binding ``SPEC`` to the document (for a throw-away project)."""
    return f"SPEC = {pprint.pformat(ITEMS_SPEC, sort_dicts=False)}\n"
