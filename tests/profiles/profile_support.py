"""The tools every profile test runs on: every generated tree and corpus schema in the repository,
plus hand-written schemas that exercise each transform."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from mcp_codegen._shared.reader import read_tree, wire_tools
from tests.helpers.golden import read_case, seed_cases

ROOT = Path(__file__).resolve().parents[2]
GENERATED_TREES = (
    ROOT / "generated",
    ROOT / "tests/runtime/fixtures/output/generated",
    ROOT / "tests/runtime/abuse/fixtures/output/generated",
)

STR = {"type": "string"}
INT = {"type": "integer"}
CATEGORY = {
    "type": "object",
    "properties": {
        "name": STR,
        "children": {"type": "array", "items": {"$ref": "#/$defs/Category"}},
    },
    "required": ["name"],
}


def _tool(
    name: str, properties: dict[str, Any], required: tuple[str, ...] = (), **extra: Any
) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(required),
    }
    schema.update(extra)
    return {"name": name, "description": f"{name} (hand-written)", "inputSchema": schema}


def _nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = STR
    for level in range(depth):
        node = {"type": "object", "properties": {f"l{level}": node}, "required": [f"l{level}"]}
    return node


#: Schemas that the generator rarely emits but that real servers serve.
HAND_WRITTEN = [
    _tool(
        "discriminated",
        {
            "pet": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "cat"}, "lives": INT},
                        "required": ["kind", "lives"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "dog"}, "good": {"type": "boolean"}},
                        "required": ["kind"],
                    },
                ],
                "discriminator": {"propertyName": "kind"},
            }
        },
        ("pet",),
    ),
    _tool("overlapping_union", {"v": {"oneOf": [INT, {"type": "number", "minimum": 0}]}}, ("v",)),
    _tool(
        "intersection",
        {
            "window": {
                "allOf": [
                    {"type": "object", "properties": {"start": INT}, "required": ["start"]},
                    {"properties": {"end": INT}, "required": ["end"]},
                ],
                "description": "both ends",
            },
            "clash": {"type": "integer", "allOf": [{"type": "string"}]},
        },
        ("window",),
    ),
    _tool(
        "type_arrays",
        {
            "maybe": {"type": ["string", "null"]},
            "either": {"type": ["integer", "string"]},
            "choice": {"type": "string", "enum": ["a", "b"]},
            "numbers": {"enum": [1, 2, 3]},
            "nullable_enum": {"enum": ["x", None]},
        },
        ("maybe", "either"),
    ),
    _tool(
        "constants",
        {"mode": {"const": "fast"}, "version": {"const": 3}, "nothing": {"const": None}},
        ("mode",),
    ),
    _tool(
        "maps",
        {
            "counts": {"type": "object", "additionalProperties": INT},
            "anything": {"type": "object"},
            "closed": {"type": "object", "properties": {"a": STR}, "additionalProperties": False},
        },
        ("counts",),
    ),
    _tool(
        "recursive",
        {"tree": {"$ref": "#/$defs/Category", "description": "the root category"}},
        ("tree",),
        **{"$defs": {"Category": CATEGORY}},
    ),
    _tool(
        "formats",
        {
            "site": {"type": "string", "format": "uri"},
            "day": {"type": "string", "format": "date"},
            "mail": {"type": "string", "format": "email"},
            "id": {"type": "string", "format": "uuid"},
            "big": {"type": "integer", "format": "int64"},
            "when": {"type": "string", "format": "date-time"},
        },
    ),
    _tool(
        "constraints",
        {
            "slug": {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z]+$"},
            "pair": {
                "type": "array",
                "prefixItems": [INT, STR],
                "minItems": 2,
                "maxItems": 2,
            },
            "tags": {"type": "array", "items": STR, "uniqueItems": True},
            "odd": {"type": "integer", "not": {"multipleOf": 2}},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "labels": {"type": "object", "patternProperties": {"^x-": STR}},
        },
        ("slug",),
        examples=[{"slug": "ab"}],
    ),
    _tool(
        "root_union",
        {"a": INT, "b": INT},
        anyOf=[{"required": ["a"]}, {"required": ["b"]}],
    ),
    _tool("root_intersection", {"a": INT}, allOf=[{"properties": {"b": STR}}]),
    _tool("too_deep", {"root": _nested(11)}, ("root",)),
    _tool("too_wide", {f"p{i}": INT for i in range(5001)}),
    _tool("many_enums", {"e": {"type": "string", "enum": [f"v{i:04d}" for i in range(1001)]}}),
    _tool("untyped", {"value": {}, "described": {"description": "anything"}}, ("value",)),
]


def published_corpus() -> list[dict[str, Any]]:
    """The published-style corpus (tests/fixtures/published), generated in its frameworks'
    flavors: schemas as MCPServer and fastmcp serve them ($defs, titles, ...)."""
    from tests.helpers.corpus import PACKAGES, PROCESS_BUILDS, PUBLISHED

    tools: list[dict[str, Any]] = []
    for package, flavor in PACKAGES.items():
        built, _ = PROCESS_BUILDS.get(flavor, [PUBLISHED / package])
        tools += [{**tool, "name": f"{package}.{name}"} for name, tool in built["wire"].items()]
    return tools


#: The published corpus's tool names, in the order its builds list them. Building it takes a worker
#: pool per package (a minute on a busy box), too slow for collection, so the parametrized tests
#: take their ids from here; ``test_the_corpus_is_big_and_varied`` fails when this list drifts
#: from what the builds serve (then copy the printed names here).
PUBLISHED_NAMES: dict[str, tuple[str, ...]] = {
    "sdk2": (
        "get_repository", "list_issues", "create_issue", "search_code", "star_count",
        "compare_refs", "add_note", "list_notes", "delete_note", "search_notes", "note_stats",
        "export_notes", "pin_note", "archive_note", "ping", "note_as_text", "rename_note",
        "summarize_notes", "set_priority", "tag_cloud", "query", "list_tables", "describe_table",
        "read_file", "write_file", "list_directory", "file_info",
    ),
    "sdk1": (
        "list_events", "create_event", "free_slots", "delete_event", "get_alerts", "get_forecast",
        "current_conditions", "sunrise", "convert_temperature", "heat_index",
    ),
    "fastmcp_style": (
        "admin_stats", "purge_cache", "rotate_keys", "add_document", "update_document",
        "delete_document", "reindex", "search", "facets", "get_document", "similar", "suggest",
        "index_size", "create_task", "list_tasks", "complete_task", "delete_task", "count_tasks",
        "board", "move_task", "healthcheck", "reschedule", "task_history", "task_report",
        "estimate",
    ),
}  # fmt: skip


@cache
def corpus() -> tuple[dict[str, Any], ...]:
    """Every tool: the generated trees, the published corpus, the seed-000 expected schemas,
    and HAND_WRITTEN."""
    return _unique_names([*_trees(), *published_corpus(), *_seed_expected(), *HAND_WRITTEN])


def corpus_names() -> list[str]:
    """The names ``corpus()`` gives its tools, without building the published corpus."""
    published = [
        {"name": f"{package}.{name}"}
        for package, names in PUBLISHED_NAMES.items()
        for name in names
    ]
    tools = _unique_names([*_trees(), *published, *_seed_expected(), *HAND_WRITTEN])
    return [tool["name"] for tool in tools]


def _trees() -> list[dict[str, Any]]:
    return [tool for tree in GENERATED_TREES for tool in wire_tools(read_tree(tree)[1])]


def _seed_expected() -> list[dict[str, Any]]:
    return [{"name": path.stem, **read_case(path)[1]} for path in seed_cases()]


def _unique_names(tools: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The trees share some names (the schemas differ): later ones get ``_2``, ``_3``, ..."""
    seen: dict[str, int] = {}
    unique = []
    for tool in tools:
        seen[tool["name"]] = seen.get(tool["name"], 0) + 1
        count = seen[tool["name"]]
        unique.append(tool if count == 1 else {**tool, "name": f"{tool['name']}_{count}"})
    return tuple(unique)


def openapi_to_json_schema(node: Any) -> Any:
    """Gemini's OpenAPI reading as JSON Schema: ``nullable: true`` also admits null."""
    if isinstance(node, list):
        return [openapi_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {
        key: (
            {name: openapi_to_json_schema(sub) for name, sub in value.items()}
            if key == "properties"
            else openapi_to_json_schema(value)
        )
        for key, value in node.items()
        if key != "nullable"
    }
    if node.get("nullable") is True:
        return {"anyOf": [result, {"type": "null"}]}
    return result


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 300),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(["", "ab", "x" * 9, "2024-01-02", "a@b.co", "fast", "cat", "v0001"]),
)


def values(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values near what ``schema`` describes: mostly valid, sometimes a little off (extra keys,
    nulls, wrong lengths), so a validator has both kinds to judge."""
    if not isinstance(schema, dict) or depth > 4:
        return SCALARS
    options: list[st.SearchStrategy[Any]] = [SCALARS] if depth else []
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = (root.get("$defs") or {}).get(ref[len("#/$defs/") :])
        options.append(values(target, root, depth + 1))
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        options.append(st.sampled_from(schema["enum"]))
    if "const" in schema:
        options.append(st.just(schema["const"]))
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key) or ():
            options.append(values(branch, root, depth + 1))
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds] if kinds else []
    if schema.get("nullable") is True or "null" in kinds:
        options.append(st.none())
    if "string" in kinds:
        options.append(st.text(max_size=10) | st.sampled_from(["2024-01-02", "a@b.co", "ab"]))
    if "integer" in kinds:
        options.append(st.integers(-5, 20))
    if "number" in kinds:
        options.append(st.floats(-1, 2, allow_nan=False) | st.integers(-5, 5))
    if "boolean" in kinds:
        options.append(st.booleans())
    if "array" in kinds or "items" in schema or "prefixItems" in schema:
        items = schema.get("prefixItems") or [schema.get("items")]
        options.append(st.lists(st.one_of([values(i, root, depth + 1) for i in items]), max_size=3))
    properties = schema.get("properties")
    if "object" in kinds or isinstance(properties, dict):
        fields = {
            name: st.one_of(st.just(_ABSENT), values(sub, root, depth + 1))
            for name, sub in (properties or {}).items()
        }
        extra = st.dictionaries(st.sampled_from(["zz", "x-a"]), SCALARS, max_size=1)
        options.append(
            st.tuples(st.fixed_dictionaries(fields), extra).map(
                lambda pair: {k: v for k, v in {**pair[1], **pair[0]}.items() if v is not _ABSENT}
            )
        )
    return st.one_of(options) if options else SCALARS


_ABSENT = object()
