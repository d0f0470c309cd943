"""Wire shapes of the handshake-era messages the stdio fast path answers (generated).

Extracted from the installed SDK's per-revision models by tests/runtime/stdio/wire_shapes.py;
tests/runtime/stdio/test_fastpath_session.py fails when they drift. Literal data only.
"""

MCP_TYPES_VERSION = "2.3.0"
HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
LATEST_HANDSHAKE_VERSION = "2025-11-25"
REVISIONS = {
    "2024-11-05": "2024-11-05",
    "2025-03-26": "2024-11-05",
    "2025-06-18": "2024-11-05",
    "2025-11-25": "2024-11-05",
}
SURFACES = {
    "2024-11-05": {
        "requests": {
            "initialize": {"model": "_v2025_11_25.InitializeRequestParams"},
            "ping": {"absent": {"optional": {"model": "_v2025_11_25.RequestParams"}}},
            "tools/list": {
                "absent": {"optional": {"model": "_v2025_11_25.PaginatedRequestParams"}}
            },
        },
        "notifications": {
            "notifications/initialized": {
                "absent": {"optional": {"model": "_v2025_11_25.NotificationParams"}}
            }
        },
        "results": {
            "initialize": {"model": "_v2025_11_25.InitializeResult"},
            "ping": {"model": "_v2025_11_25.Result"},
            "tools/list": {"model": "_v2025_11_25.ListToolsResult"},
        },
    }
}
MODELS = {
    "_v2025_11_25.ClientCapabilities": {
        "extra": "ignore",
        "fields": [
            ["elicitation", {"optional": {"model": "_v2025_11_25.Elicitation"}}, False],
            ["experimental", {"optional": {"dict": {"dict": "any"}}}, False],
            ["roots", {"optional": {"model": "_v2025_11_25.Roots"}}, False],
            ["sampling", {"optional": {"model": "_v2025_11_25.Sampling"}}, False],
            ["tasks", {"optional": {"model": "_v2025_11_25.Tasks"}}, False],
        ],
    },
    "_v2025_11_25.Elicitation": {
        "extra": "ignore",
        "fields": [
            ["form", {"optional": {"dict": "any"}}, False],
            ["url", {"optional": {"dict": "any"}}, False],
        ],
    },
    "_v2025_11_25.Elicitation1": {
        "extra": "ignore",
        "fields": [["create", {"optional": {"dict": "any"}}, False]],
    },
    "_v2025_11_25.Icon": {
        "extra": "ignore",
        "fields": [
            ["mimeType", {"optional": "str"}, False],
            ["sizes", {"optional": {"list": "str"}}, False],
            ["src", "str", True],
            ["theme", {"optional": {"literal": ["light", "dark"]}}, False],
        ],
    },
    "_v2025_11_25.Implementation": {
        "extra": "ignore",
        "fields": [
            ["description", {"optional": "str"}, False],
            ["icons", {"optional": {"list": {"model": "_v2025_11_25.Icon"}}}, False],
            ["name", "str", True],
            ["title", {"optional": "str"}, False],
            ["version", "str", True],
            ["websiteUrl", {"optional": "str"}, False],
        ],
    },
    "_v2025_11_25.InitializeRequestParams": {
        "extra": "ignore",
        "fields": [
            ["_meta", {"optional": {"model": "_v2025_11_25.Meta"}}, False],
            ["capabilities", {"model": "_v2025_11_25.ClientCapabilities"}, True],
            ["clientInfo", {"model": "_v2025_11_25.Implementation"}, True],
            ["protocolVersion", "str", True],
        ],
    },
    "_v2025_11_25.InitializeResult": {
        "extra": "ignore",
        "fields": [
            ["_meta", {"optional": {"dict": "any"}}, False],
            ["capabilities", {"model": "_v2025_11_25.ServerCapabilities"}, True],
            ["instructions", {"optional": "str"}, False],
            ["protocolVersion", "str", True],
            ["serverInfo", {"model": "_v2025_11_25.Implementation"}, True],
        ],
    },
    "_v2025_11_25.InputSchema": {
        "extra": "allow",
        "fields": [
            ["$schema", {"optional": "str"}, False],
            ["properties", {"optional": {"dict": {"union": [{"dict": "any"}, "bool"]}}}, False],
            ["required", {"optional": {"list": "str"}}, False],
            ["type", {"literal": ["object"]}, True],
        ],
    },
    "_v2025_11_25.ListToolsResult": {
        "extra": "ignore",
        "fields": [
            ["_meta", {"optional": {"dict": "any"}}, False],
            ["nextCursor", {"optional": "str"}, False],
            ["tools", {"list": {"model": "_v2025_11_25.Tool"}}, True],
        ],
    },
    "_v2025_11_25.Meta": {
        "extra": "allow",
        "fields": [["progressToken", {"optional": {"union": ["str", "int"]}}, False]],
    },
    "_v2025_11_25.NotificationParams": {
        "extra": "ignore",
        "fields": [["_meta", {"optional": {"dict": "any"}}, False]],
    },
    "_v2025_11_25.OutputSchema": {
        "extra": "allow",
        "fields": [
            ["$schema", {"optional": "str"}, False],
            ["properties", {"optional": {"dict": {"union": [{"dict": "any"}, "bool"]}}}, False],
            ["required", {"optional": {"list": "str"}}, False],
            ["type", {"literal": ["object"]}, True],
        ],
    },
    "_v2025_11_25.PaginatedRequestParams": {
        "extra": "ignore",
        "fields": [
            ["_meta", {"optional": {"model": "_v2025_11_25.Meta"}}, False],
            ["cursor", {"optional": "str"}, False],
        ],
    },
    "_v2025_11_25.Prompts": {
        "extra": "ignore",
        "fields": [["listChanged", {"optional": "bool"}, False]],
    },
    "_v2025_11_25.RequestParams": {
        "extra": "ignore",
        "fields": [["_meta", {"optional": {"model": "_v2025_11_25.Meta"}}, False]],
    },
    "_v2025_11_25.Requests": {
        "extra": "ignore",
        "fields": [
            ["elicitation", {"optional": {"model": "_v2025_11_25.Elicitation1"}}, False],
            ["sampling", {"optional": {"model": "_v2025_11_25.Sampling1"}}, False],
        ],
    },
    "_v2025_11_25.Requests1": {
        "extra": "ignore",
        "fields": [["tools", {"optional": {"model": "_v2025_11_25.Tools"}}, False]],
    },
    "_v2025_11_25.Resources": {
        "extra": "ignore",
        "fields": [
            ["listChanged", {"optional": "bool"}, False],
            ["subscribe", {"optional": "bool"}, False],
        ],
    },
    "_v2025_11_25.Result": {
        "extra": "allow",
        "fields": [["_meta", {"optional": {"dict": "any"}}, False]],
    },
    "_v2025_11_25.Roots": {
        "extra": "ignore",
        "fields": [["listChanged", {"optional": "bool"}, False]],
    },
    "_v2025_11_25.Sampling": {
        "extra": "ignore",
        "fields": [
            ["context", {"optional": {"dict": "any"}}, False],
            ["tools", {"optional": {"dict": "any"}}, False],
        ],
    },
    "_v2025_11_25.Sampling1": {
        "extra": "ignore",
        "fields": [["createMessage", {"optional": {"dict": "any"}}, False]],
    },
    "_v2025_11_25.ServerCapabilities": {
        "extra": "ignore",
        "fields": [
            ["completions", {"optional": {"dict": "any"}}, False],
            ["experimental", {"optional": {"dict": {"dict": "any"}}}, False],
            ["logging", {"optional": {"dict": "any"}}, False],
            ["prompts", {"optional": {"model": "_v2025_11_25.Prompts"}}, False],
            ["resources", {"optional": {"model": "_v2025_11_25.Resources"}}, False],
            ["tasks", {"optional": {"model": "_v2025_11_25.Tasks1"}}, False],
            ["tools", {"optional": {"model": "_v2025_11_25.Tools1"}}, False],
        ],
    },
    "_v2025_11_25.Tasks": {
        "extra": "ignore",
        "fields": [
            ["cancel", {"optional": {"dict": "any"}}, False],
            ["list", {"optional": {"dict": "any"}}, False],
            ["requests", {"optional": {"model": "_v2025_11_25.Requests"}}, False],
        ],
    },
    "_v2025_11_25.Tasks1": {
        "extra": "ignore",
        "fields": [
            ["cancel", {"optional": {"dict": "any"}}, False],
            ["list", {"optional": {"dict": "any"}}, False],
            ["requests", {"optional": {"model": "_v2025_11_25.Requests1"}}, False],
        ],
    },
    "_v2025_11_25.Tool": {
        "extra": "ignore",
        "fields": [
            ["_meta", {"optional": {"dict": "any"}}, False],
            ["annotations", {"optional": {"model": "_v2025_11_25.ToolAnnotations"}}, False],
            ["description", {"optional": "str"}, False],
            ["execution", {"optional": {"model": "_v2025_11_25.ToolExecution"}}, False],
            ["icons", {"optional": {"list": {"model": "_v2025_11_25.Icon"}}}, False],
            ["inputSchema", {"model": "_v2025_11_25.InputSchema"}, True],
            ["name", "str", True],
            ["outputSchema", {"optional": {"model": "_v2025_11_25.OutputSchema"}}, False],
            ["title", {"optional": "str"}, False],
        ],
    },
    "_v2025_11_25.ToolAnnotations": {
        "extra": "ignore",
        "fields": [
            ["destructiveHint", {"optional": "bool"}, False],
            ["idempotentHint", {"optional": "bool"}, False],
            ["openWorldHint", {"optional": "bool"}, False],
            ["readOnlyHint", {"optional": "bool"}, False],
            ["title", {"optional": "str"}, False],
        ],
    },
    "_v2025_11_25.ToolExecution": {
        "extra": "ignore",
        "fields": [
            ["taskSupport", {"optional": {"literal": ["forbidden", "optional", "required"]}}, False]
        ],
    },
    "_v2025_11_25.Tools": {
        "extra": "ignore",
        "fields": [["call", {"optional": {"dict": "any"}}, False]],
    },
    "_v2025_11_25.Tools1": {
        "extra": "ignore",
        "fields": [["listChanged", {"optional": "bool"}, False]],
    },
}
