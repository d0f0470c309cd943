"""The published JSON Schema (2020-12) of ``mcp-codegen diff --format json``.

``mcp-codegen diff --json-schema`` prints it; tests validate real reports against it. A key is
added here in the same change that adds it to ``renderers.render_json``: objects are closed, so
the schema fails tests when the two drift apart.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_codegen._diff.changes import ChangeKind, Level, Severity

SCHEMA_ID = "urn:mcp-codegen:diff-report:1"

_NULLABLE_STRING = {"type": ["string", "null"]}
_COUNT = {"type": "integer", "minimum": 0}
_DELTA = {"type": "integer"}
_OPTIONAL_COUNT = {"type": ["integer", "null"], "minimum": 0}


def _closed(properties: dict[str, Any], *optional: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": [key for key in properties if key not in optional],
        "additionalProperties": False,
    }


_SIDE = _closed(
    {
        "label": {"type": "string"},
        "version": _NULLABLE_STRING,
        "tools": _COUNT,
        "dependencies": {
            "description": "The versions that decided inference, as the side's manifest "
            "records them (null: not recorded, format 2 or older).",
            "type": ["object", "null"],
            "additionalProperties": {"type": "string"},
        },
    }
)

_CHANGE = _closed(
    {
        "kind": {"enum": [kind.slug for kind in ChangeKind]},
        "rule": {"enum": [kind.rule for kind in ChangeKind]},
        "severity": {"enum": [severity.value for severity in Severity]},
        "tool": {"type": "string"},
        "pointer": {"type": "string"},
        "message": {"type": "string"},
        "old": {"description": "The BASE value (absent when BASE has none)."},
        "new": {"description": "The HEAD value (absent when HEAD has none)."},
        "path": _NULLABLE_STRING,
        "line": _COUNT,
        "level": {"enum": [level.value for level in Level if level is not Level.OFF]},
        "acknowledged": {
            "description": "The reason from mcp-schema-changes.toml, or null.",
            "type": ["string", "null"],
        },
    },
    "old",
    "new",
)

_SIZE_ROW = _closed(
    {
        "tool": {"type": "string"},
        "base_bytes": _OPTIONAL_COUNT,
        "head_bytes": _OPTIONAL_COUNT,
        "delta_bytes": _DELTA,
        "base_tokens": _OPTIONAL_COUNT,
        "head_tokens": _OPTIONAL_COUNT,
        "delta_tokens": _DELTA,
    }
)
_MEASURE = _closed({"bytes": _COUNT, "tokens": _COUNT})

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "mcp-codegen diff report",
    **_closed(
        {
            "base": _SIDE,
            "head": _SIDE,
            "summary": _closed({severity.value: _COUNT for severity in Severity}),
            "version": _closed(
                {
                    "bump": {"enum": ["major", "minor", "patch", None]},
                    "proposed": _NULLABLE_STRING,
                    "head_satisfies": {"type": ["boolean", "null"]},
                }
            ),
            "changes": {"type": "array", "items": _CHANGE},
            "stale_acknowledgements": {
                "type": "array",
                "items": _closed(
                    {
                        "tool": {"type": "string"},
                        "rule": {"type": "string"},
                        "pointer": {"type": "string"},
                        "reason": {"type": "string"},
                    }
                ),
            },
            "size": {
                "oneOf": [
                    {"type": "null"},
                    _closed(
                        {
                            "tokenizer": {"type": "string"},
                            "base": _MEASURE,
                            "head": _MEASURE,
                            "delta": _closed({"bytes": _DELTA, "tokens": _DELTA}),
                            "tools": {"type": "array", "items": _SIZE_ROW},
                        }
                    ),
                ]
            },
        }
    ),
}


def render_schema() -> str:
    return json.dumps(REPORT_SCHEMA, indent=2, ensure_ascii=False) + "\n"
