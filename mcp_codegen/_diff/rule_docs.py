"""One documentation entry per diff rule: a before/after example and who it affects.

Pure data, kept next to ``changes.ChangeKind`` so that a kind cannot ship without its entry
(``tests/diff/rules/test_rules.py`` fails when one is missing, and runs every example through the
classifier, asserting that exactly its own rule fires). ``docs/diff-rules.md`` is rendered from
these entries by ``python -m mcp_codegen._diff.rules --write``. Long by nature: one entry per rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Protocol revisions whose clients get the boxed output variant / the natural one.
BOXED_REVISIONS = "2025-06-18 and 2025-11-25"
NATURAL_REVISION = "2026-07-28"


@dataclass(frozen=True)
class RuleDoc:
    """Why a rule matters, and an example: BASE's tools and HEAD's tools (a tools/list)."""

    summary: str
    why: str
    before: tuple[dict[str, Any], ...]
    after: tuple[dict[str, Any], ...]
    #: The protocol revisions whose clients see the change ("" = every revision).
    revisions: str = ""
    #: For client-aware rules: the ``[tool.mcp-codegen]`` client settings the example needs
    #: (``mcp_codegen._diff.clients.ClientSettings`` fields).
    settings: dict[str, Any] | None = None
    #: The modules' ``PROTOCOLS`` on BASE and HEAD, when the example depends on them.
    protocols: tuple[tuple[str, ...], tuple[str, ...]] | None = None


S: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
N: dict[str, Any] = {"type": "number"}


def _obj(props: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    return {**schema, **extra}


def _tool(
    inputs: dict[str, Any] | None = None,
    required: tuple[str, ...] = (),
    *,
    name: str = "search",
    output: dict[str, Any] | None = None,
    private: dict[str, Any] | None = None,
    **fields: Any,
) -> tuple[dict[str, Any], ...]:
    """A one-tool side: ``name`` with ``inputs`` (and ``required``), optional output schema."""
    tool: dict[str, Any] = {"name": name, **fields, "inputSchema": _obj(inputs or {}, required)}
    if output is not None:
        tool["outputSchema"] = output
    if private is not None:
        tool["x-codegen"] = private
    return (tool,)


def _in(schema: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """A tool whose one optional input ``q`` has ``schema``."""
    return _tool({"q": schema})


def _out(schema: dict[str, Any], **extra: Any) -> tuple[dict[str, Any], ...]:
    """A tool whose output object has one required field ``count`` with ``schema``."""
    return _tool(output=_obj({"count": schema}, ("count",), **extra))


def _hints(**hints: Any) -> tuple[dict[str, Any], ...]:
    return _tool(annotations=hints)


def _boxed(field: str, natural: bool = False) -> tuple[dict[str, Any], ...]:
    """A tool returning a list of strings, boxed under ``field`` (with a natural variant)."""
    value = {"type": "array", "items": S}
    private: dict[str, Any] = {"function": "pkg.tools:search", "box": {"field": field}}
    if natural:
        private["natural"] = {"outputSchema": value}
    return _tool(output=_obj({field: value}, (field,)), private=private)


_OLD_CALLS = "clients that send the old arguments"
_OLD_READERS = "clients that validate or parse results against the old output schema"

RULE_DOCS: dict[str, RuleDoc] = {
    # --- tools
    "tool-removed": RuleDoc(
        "A tool is no longer listed.",
        f"Every call to it fails with an unknown-tool error; {_OLD_CALLS} break.",
        _tool(),
        (),
    ),
    "tool-added": RuleDoc(
        "A new tool is listed.",
        "No existing call changes; clients see one more tool (and pay its context cost).",
        (),
        _tool(),
    ),
    "tool-renamed": RuleDoc(
        "A tool looks renamed: same function (or same schemas) under another name.",
        "Calls by the old name fail; models and prompts that name the tool must be updated.",
        _tool({"q": S}, private={"function": "pkg.tools:search"}),
        _tool({"q": S}, name="find", private={"function": "pkg.tools:search"}),
    ),
    # --- inputs
    "input-required-added": RuleDoc(
        "A new input must be sent.",
        f"Calls without it are rejected by the server's validation; {_OLD_CALLS} break.",
        _tool({"q": S}, ("q",)),
        _tool({"q": S, "limit": INT}, ("q", "limit")),
    ),
    "input-optional-added": RuleDoc(
        "A new input may be sent.",
        "Old calls still validate; the default applies when it is omitted.",
        _tool({"q": S}),
        _tool({"q": S, "limit": INT}),
    ),
    "input-removed": RuleDoc(
        "An input is gone.",
        "Old calls that send it are rejected where additional properties are closed, and the "
        "value is ignored elsewhere, so the behaviour they asked for is lost.",
        _tool({"q": S, "limit": INT}),
        _tool({"q": S}),
    ),
    "input-made-required": RuleDoc(
        "An optional input became required.",
        f"Calls that omitted it are now rejected; {_OLD_CALLS} break.",
        _tool({"q": S}),
        _tool({"q": S}, ("q",)),
    ),
    "input-made-optional": RuleDoc(
        "A required input became optional.",
        "Every old call still sends it and still validates.",
        _tool({"q": S}, ("q",)),
        _tool({"q": S}),
    ),
    "input-type-narrowed": RuleDoc(
        "An input accepts fewer JSON types (number to integer, a nullable made non-null).",
        f"Old calls with the dropped types are rejected; {_OLD_CALLS} break.",
        _in(N),
        _in(INT),
    ),
    "input-type-widened": RuleDoc(
        "An input accepts more JSON types.",
        "Every old value is still accepted.",
        _in(INT),
        _in(N),
    ),
    "input-type-changed": RuleDoc(
        "An input's type changed to an unrelated one.",
        f"Old values of the old type are rejected; {_OLD_CALLS} break.",
        _in(S),
        _in(INT),
    ),
    "input-enum-value-removed": RuleDoc(
        "An input no longer accepts one of its enum values.",
        "Calls that send that value are rejected; models that learnt it keep sending it.",
        _in({**S, "enum": ["title", "price"]}),
        _in({**S, "enum": ["title"]}),
    ),
    "input-enum-value-added": RuleDoc(
        "An input accepts one more enum value.",
        "Every old value is still accepted.",
        _in({**S, "enum": ["title"]}),
        _in({**S, "enum": ["title", "price"]}),
    ),
    "input-constraint-tightened": RuleDoc(
        "A bound, length, count, pattern, format or closed object rejects values it accepted.",
        "Old calls outside the new bound are rejected (here: limit 100 was valid and is not).",
        _in({**INT, "maximum": 100}),
        _in({**INT, "maximum": 50}),
    ),
    "input-constraint-loosened": RuleDoc(
        "A constraint on an input accepts more values.",
        "Every old call still validates.",
        _in({**INT, "maximum": 50}),
        _in({**INT, "maximum": 100}),
    ),
    # --- outputs
    "output-field-removed": RuleDoc(
        "A field of the structured result is gone.",
        f"Code that reads it fails; {_OLD_READERS} reject results without a required field.",
        _tool(output=_obj({"count": INT, "total": INT}, ("count", "total"))),
        _tool(output=_obj({"count": INT}, ("count",))),
    ),
    "output-field-made-optional": RuleDoc(
        "A result field that was always present may now be missing.",
        f"Code that reads it unconditionally fails; {_OLD_READERS} reject such results.",
        _out(INT),
        _tool(output=_obj({"count": INT})),
    ),
    "output-field-made-required": RuleDoc(
        "A result field that could be missing is now always present.",
        "Every new result still satisfies the old schema.",
        _tool(output=_obj({"count": INT})),
        _out(INT),
    ),
    "output-field-added": RuleDoc(
        "A result gains a field, in an object that allowed extra properties.",
        "Old readers ignore it; the old schema still accepts the new results.",
        _out(INT),
        _tool(output=_obj({"count": INT, "total": INT}, ("count",))),
    ),
    "output-field-added-to-closed": RuleDoc(
        "A result gains a field in an object whose old schema forbade extra properties.",
        "Clients validating results against the old schema (the MCP SDK's ClientSession does) "
        "reject every result carrying the field.",
        _out(INT, additionalProperties=False),
        _tool(
            output=_obj({"count": INT, "total": INT}, ("count",), additionalProperties=False),
        ),
    ),
    "output-type-changed": RuleDoc(
        "A result value's type changed to one the old schema does not allow.",
        f"{_OLD_READERS} reject the new results; typed client code misreads them.",
        _out(S),
        _out(INT),
    ),
    "output-type-narrowed": RuleDoc(
        "A result value has fewer possible types.",
        "Every new result still satisfies the old schema.",
        _out(N),
        _out(INT),
    ),
    "output-enum-value-added": RuleDoc(
        "A result value may take a new enum value.",
        "Clients that switch over the known values meet one they do not handle; validating "
        "clients reject it.",
        _out({**S, "enum": ["ok"]}),
        _out({**S, "enum": ["ok", "partial"]}),
    ),
    "output-enum-value-removed": RuleDoc(
        "A result value never takes one of its enum values any more.",
        "Every new result still satisfies the old schema.",
        _out({**S, "enum": ["ok", "partial"]}),
        _out({**S, "enum": ["ok"]}),
    ),
    "output-constraint-loosened": RuleDoc(
        "A constraint on a result value allows more values.",
        f"{_OLD_READERS} reject results outside the old bound.",
        _out({**INT, "maximum": 10}),
        _out({**INT, "maximum": 20}),
    ),
    "output-constraint-tightened": RuleDoc(
        "A constraint on a result value allows fewer values.",
        "Every new result still satisfies the old schema.",
        _out({**INT, "maximum": 20}),
        _out({**INT, "maximum": 10}),
    ),
    "output-schema-added": RuleDoc(
        "A tool now declares an outputSchema.",
        "Results now carry structuredContent; clients that ignored it are unaffected.",
        _tool(),
        _tool(output=_obj({"count": INT}, ("count",))),
    ),
    "output-schema-removed": RuleDoc(
        "A tool no longer declares an outputSchema.",
        "Clients that read structuredContent get none; generated client types disappear.",
        _tool(output=_obj({"count": INT}, ("count",))),
        _tool(),
    ),
    "box-field-changed": RuleDoc(
        "The field boxing a non-object return value in structuredContent was renamed.",
        "Clients of the boxed revisions read the value under the old field and find nothing.",
        _boxed("result"),
        _boxed("value"),
        revisions=BOXED_REVISIONS,
    ),
    "natural-box-changed": RuleDoc(
        "The structuredContent shape a 2026-07-28 client gets changed: boxed to natural (the "
        "bare value) or back.",
        "Clients of protocol 2026-07-28 that read the value under the box field find a bare "
        "value instead (or the reverse); clients of older revisions are unaffected.",
        _boxed("result"),
        _boxed("result", natural=True),
        revisions=NATURAL_REVISION,
    ),
    "output-revisions-dropped": RuleDoc(
        "The tool's module is now built for protocol 2026-07-28 alone.",
        "Its output schemas may have any root, which older revisions do not accept, so the "
        "server refuses to list it to clients of 2025-11-25 and before.",
        _tool({"q": S}),
        _tool({"q": S}),
        revisions=BOXED_REVISIONS,
        protocols=(("2025-06-18", "2025-11-25", "2026-07-28"), ("2026-07-28",)),
    ),
    "output-revisions-added": RuleDoc(
        "The tool's module is built for older protocol revisions again.",
        "Clients of 2025-11-25 and before get the tool, with boxed (object-root) output schemas.",
        _tool({"q": S}),
        _tool({"q": S}),
        revisions=BOXED_REVISIONS,
        protocols=(("2026-07-28",), ("2025-11-25", "2026-07-28")),
    ),
    # --- undecidable
    "pattern-changed": RuleDoc(
        "A pattern was replaced by another; whether either accepts more cannot be decided.",
        "Possibly breaking in either direction: review by hand, then acknowledge.",
        _in({**S, "pattern": "^[a-z]+$"}),
        _in({**S, "pattern": "^[a-z0-9]+$"}),
    ),
    "format-changed": RuleDoc(
        "A format was replaced by another.",
        "Validators that enforce formats may accept different sets of strings.",
        _in({**S, "format": "date"}),
        _in({**S, "format": "date-time"}),
    ),
    "union-changed": RuleDoc(
        "anyOf / oneOf branches changed in a way that cannot be paired up.",
        "Overlapping oneOf branches can make old values match two branches (and fail).",
        _in({"oneOf": [_obj({"a": S}), {"type": "null"}]}),
        _in({"oneOf": [_obj({"a": S}), _obj({"b": S}), {"type": "null"}]}),
    ),
    "keyword-undecided": RuleDoc(
        "A keyword the classifier does not reason about (not, if/then/else, ...) changed.",
        "Never assumed compatible: review by hand.",
        _in({**S, "not": {"const": "x"}}),
        _in({**S, "not": {"const": "y"}}),
    ),
    "ref-unresolved": RuleDoc(
        "A $ref cannot be resolved inside the schema document.",
        "Clients that resolve references fail to load the schema.",
        _tool({"q": S}),
        _tool({"q": {"$ref": "#/$defs/Missing"}}),
    ),
    # --- notable
    "ref-retargeted": RuleDoc(
        "A $ref points at another definition with the same content.",
        "Nothing validates differently; generated client types may be renamed.",
        (
            {
                "name": "search",
                "inputSchema": {
                    **_obj({"q": {"$ref": "#/$defs/Query"}}),
                    "$defs": {"Query": S, "Text": S},
                },
            },
        ),
        (
            {
                "name": "search",
                "inputSchema": {
                    **_obj({"q": {"$ref": "#/$defs/Text"}}),
                    "$defs": {"Query": S, "Text": S},
                },
            },
        ),
    ),
    "default-changed": RuleDoc(
        "A default value changed.",
        "Calls that omit the input now get different behaviour; no call is rejected.",
        _in({**INT, "default": 20}),
        _in({**INT, "default": 10}),
    ),
    "description-changed": RuleDoc(
        "A tool or schema description changed.",
        "Models read descriptions to decide what to call and how: review the wording.",
        _tool(description="Search the catalogue."),
        _tool(description="Search the catalogue by title or author."),
    ),
    "title-changed": RuleDoc(
        "A tool or schema title changed.",
        "Clients show titles to users; nothing validates differently.",
        _tool(title="Search"),
        _tool(title="Search the catalogue"),
    ),
    "schema-annotation-changed": RuleDoc(
        "Another JSON Schema annotation (examples, deprecated, readOnly, ...) changed.",
        "Nothing validates differently; models may use examples and deprecation marks.",
        _in({**S, "deprecated": False}),
        _in({**S, "deprecated": True}),
    ),
    "annotation-changed": RuleDoc(
        "A tool annotation changed in the safe direction, or a non-hint annotation changed.",
        "Hints are untrusted; clients may ask the user for confirmation less often.",
        _hints(readOnlyHint=False, destructiveHint=False),
        _hints(readOnlyHint=True, destructiveHint=False),
    ),
    "destructive-hint-enabled": RuleDoc(
        "The tool is now marked destructive (destructiveHint true, or its default).",
        "Clients that auto-approve non-destructive tools will now ask the user first.",
        _hints(destructiveHint=False),
        _hints(destructiveHint=True),
    ),
    "read-only-hint-disabled": RuleDoc(
        "The tool is no longer marked read-only.",
        "Clients that run read-only tools without confirmation will now ask the user first.",
        _hints(readOnlyHint=True, destructiveHint=False, idempotentHint=True),
        _hints(readOnlyHint=False, destructiveHint=False, idempotentHint=True),
    ),
    "idempotent-hint-disabled": RuleDoc(
        "The tool is no longer marked idempotent.",
        "Clients that retried it after a timeout must stop retrying blindly.",
        _hints(idempotentHint=True),
        _hints(idempotentHint=False),
    ),
    "open-world-hint-enabled": RuleDoc(
        "The tool now reaches an open world (openWorldHint true, or its default).",
        "Clients that sandbox or trust closed-world tools may treat it differently.",
        _hints(openWorldHint=False),
        _hints(),
    ),
    "tool-metadata-changed": RuleDoc(
        "Another tool field (icons, _meta, ...) changed.",
        "Nothing validates differently; clients that show icons or read _meta see the change.",
        _tool(icons=[{"src": "https://example.com/a.png"}]),
        _tool(icons=[{"src": "https://example.com/b.png"}]),
    ),
    # --- clients (with profiles, name_budget and size limits configured)
    "client-profile-fails": RuleDoc(
        "A kept tool can no longer be expressed for a configured client profile.",
        "That client drops or rejects the tool (here OpenAI strict mode cannot express an open "
        "object), although the MCP schema itself changed compatibly.",
        _tool({"q": S}),
        _tool({"q": S, "filters": {"type": "object"}}),
        settings={"profiles": ("openai-strict",)},
    ),
    "client-profile-loses": RuleDoc(
        "A kept tool newly loses something under a configured client profile.",
        "The model behind that client no longer sees a constraint (here Claude gets the root "
        "anyOf flattened), so it sends calls the server rejects more often.",
        _tool({"a": S}),
        (
            {
                "name": "search",
                "inputSchema": {
                    "type": "object",
                    "anyOf": [_obj({"a": S}, ("a",)), _obj({"b": S}, ("b",))],
                },
            },
        ),
        settings={"profiles": ("claude",)},
    ),
    "name-over-budget": RuleDoc(
        "A new or renamed tool's name (with the server name) exceeds name_budget.",
        "Clients such as Cursor drop tools whose server plus tool name is over 60 characters.",
        _tool({"q": S}, private={"function": "pkg.tools:search"}),
        _tool(
            {"q": S},
            name="search_the_entire_catalogue_by_title_author_isbn_or_free_text_tag",
            private={"function": "pkg.tools:search"},
        ),
        settings={"server_name": "bookshop"},
    ),
    "size-limit-exceeded": RuleDoc(
        "A tool, or the whole tools/list, crosses max_tool_bytes or max_total_bytes.",
        "Every tool is sent to the model on every turn: the context budget you set is exceeded.",
        _tool({"q": S}),
        _tool({"q": {**S, "description": "Text to look for in titles, authors and tags."}}),
        settings={"max_total_bytes": 120},
    ),
}
