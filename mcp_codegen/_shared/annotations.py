"""The two kinds of annotation the tree reasons about, each defined once.

- JSON Schema annotation keywords: they describe or document a value but never decide whether it
  validates (the diff compares them for review only; a profile that drops one *loses*
  information rather than *loosening* the schema).
- MCP tool annotation hints (``ToolAnnotations``) and the defaults the spec gives them.
"""

from __future__ import annotations

#: JSON Schema 2020-12 annotation keywords, plus the OpenAPI (``example``, ``discriminator``) and
#: Gemini (``propertyOrdering``) ones that model APIs accept in tool schemas.
SCHEMA_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "example",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "$schema",
        "$id",
        "$anchor",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "discriminator",
        "propertyOrdering",
    }
)

#: Each ``ToolAnnotations`` hint and the value the MCP spec assumes when a tool omits it.
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
#: The hint keys, in the spec's order.
TOOL_HINTS = tuple(HINT_DEFAULTS)
