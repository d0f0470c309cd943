"""The change model: named change kinds, each with a severity and a message template.

Follows griffe's breakage model: a ``ChangeKind`` member carries everything that is fixed for the
kind (severity, message template), and a frozen ``Change`` records one occurrence of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from mcp_codegen._shared.json_values import ABSENT, JSON


class Severity(Enum):
    """How a change affects clients written against the old schemas, most severe first."""

    BREAKING = "breaking"  # some old call is rejected, or some new result is not understood
    UNKNOWN = (
        "unknown"  # the impact cannot be decided from the schemas; never treated as compatible
    )
    COMPATIBLE = "compatible"  # every old call still works and every new result is still understood
    NOTABLE = "notable"  # no contract change, but a reviewer should see it (docs, hints, defaults)

    @property
    def rank(self) -> int:
        """0 for the most severe; used for sorting."""
        return list(Severity).index(self)


class Level(Enum):
    """What the review gate does with a change, most severe first (``mcp_codegen._diff.rules``)."""

    ERROR = "error"
    WARN = "warn"
    INFO = "info"
    OFF = "off"

    @property
    def rank(self) -> int:
        return list(Level).index(self)


#: A rule's level when ``[tool.mcp-codegen.diff]`` does not set it.
DEFAULT_LEVEL = {
    Severity.BREAKING: Level.ERROR,
    Severity.UNKNOWN: Level.ERROR,  # never assumed compatible
    Severity.COMPATIBLE: Level.INFO,
    Severity.NOTABLE: Level.INFO,
}

_B, _U, _C, _N = Severity.BREAKING, Severity.UNKNOWN, Severity.COMPATIBLE, Severity.NOTABLE


class ChangeKind(Enum):
    """Every change the classifier can report. Templates use the fields of ``Change.fields``."""

    # Tools
    TOOL_REMOVED = ("tool_removed", _B, "tool {tool!r} removed")
    TOOL_ADDED = ("tool_added", _C, "tool {tool!r} added")
    TOOL_RENAMED = ("tool_renamed", _B, "tool {old_name!r} looks renamed to {tool!r}")
    # Inputs (contravariant: the server must still accept every old call)
    INPUT_REQUIRED_ADDED = ("input_required_added", _B, "required input {name!r} added")
    INPUT_OPTIONAL_ADDED = ("input_optional_added", _C, "optional input {name!r} added")
    INPUT_REMOVED = ("input_removed", _B, "input {name!r} removed")
    INPUT_MADE_REQUIRED = ("input_made_required", _B, "input {name!r} became required")
    INPUT_MADE_OPTIONAL = ("input_made_optional", _C, "input {name!r} became optional")
    INPUT_TYPE_NARROWED = ("input_type_narrowed", _B, "type of {subject} narrowed: {old} -> {new}")
    INPUT_TYPE_WIDENED = ("input_type_widened", _C, "type of {subject} widened: {old} -> {new}")
    INPUT_TYPE_CHANGED = ("input_type_changed", _B, "type of {subject} changed: {old} -> {new}")
    INPUT_ENUM_VALUE_REMOVED = (
        "input_enum_value_removed",
        _B,
        "{subject} no longer accepts {value}",
    )
    INPUT_ENUM_VALUE_ADDED = ("input_enum_value_added", _C, "{subject} now accepts {value}")
    INPUT_CONSTRAINT_TIGHTENED = (
        "input_constraint_tightened",
        _B,
        "{keyword} of {subject} tightened: {old} -> {new}",
    )
    INPUT_CONSTRAINT_LOOSENED = (
        "input_constraint_loosened",
        _C,
        "{keyword} of {subject} loosened: {old} -> {new}",
    )
    # Outputs (covariant: clients must still understand every result)
    OUTPUT_FIELD_REMOVED = ("output_field_removed", _B, "output field {name!r} removed")
    OUTPUT_FIELD_MADE_OPTIONAL = (
        "output_field_made_optional",
        _B,
        "output field {name!r} may now be missing",
    )
    OUTPUT_FIELD_MADE_REQUIRED = (
        "output_field_made_required",
        _C,
        "output field {name!r} is now always present",
    )
    OUTPUT_FIELD_ADDED = ("output_field_added", _C, "output field {name!r} added")
    OUTPUT_FIELD_ADDED_TO_CLOSED = (
        "output_field_added_to_closed",
        _B,
        "output field {name!r} added to an object that forbade additional properties",
    )
    OUTPUT_TYPE_CHANGED = ("output_type_changed", _B, "type of {subject} changed: {old} -> {new}")
    OUTPUT_TYPE_NARROWED = (
        "output_type_narrowed",
        _C,
        "type of {subject} narrowed: {old} -> {new}",
    )
    OUTPUT_ENUM_VALUE_ADDED = ("output_enum_value_added", _B, "{subject} may now be {value}")
    OUTPUT_ENUM_VALUE_REMOVED = (
        "output_enum_value_removed",
        _C,
        "{subject} is never {value} any more",
    )
    OUTPUT_CONSTRAINT_LOOSENED = (
        "output_constraint_loosened",
        _B,
        "{keyword} of {subject} loosened: {old} -> {new}",
    )
    OUTPUT_CONSTRAINT_TIGHTENED = (
        "output_constraint_tightened",
        _C,
        "{keyword} of {subject} tightened: {old} -> {new}",
    )
    OUTPUT_SCHEMA_ADDED = ("output_schema_added", _C, "outputSchema added")
    OUTPUT_SCHEMA_REMOVED = ("output_schema_removed", _B, "outputSchema removed")
    BOX_FIELD_CHANGED = (
        "box_field_changed",
        _B,
        "structuredContent box changed: {old} -> {new}",
    )
    NATURAL_BOX_CHANGED = (
        "natural_box_changed",
        _B,
        "structuredContent box for protocol 2026-07-28 clients changed: {old} -> {new}",
    )
    OUTPUT_REVISIONS_DROPPED = (
        "output_revisions_dropped",
        _B,
        "no longer served to clients of protocol {revisions}: built for {protocols} only, "
        "whose output schemas those revisions do not accept",
    )
    OUTPUT_REVISIONS_ADDED = (
        "output_revisions_added",
        _C,
        "now served to clients of protocol {revisions} too (boxed output schemas)",
    )
    # Either direction, undecidable from the schemas
    PATTERN_CHANGED = ("pattern_changed", _U, "pattern of {subject} changed: {old} -> {new}")
    FORMAT_CHANGED = ("format_changed", _U, "format of {subject} changed: {old} -> {new}")
    UNION_CHANGED = ("union_changed", _U, "union branches of {subject} changed: {detail}")
    KEYWORD_UNDECIDED = (
        "keyword_undecided",
        _U,
        "{keyword} of {subject} changed: {old} -> {new}",
    )
    REF_UNRESOLVED = ("ref_unresolved", _U, "cannot resolve $ref {ref} in {subject}")
    # $defs
    REF_RETARGETED = ("ref_retargeted", _N, "{subject} now refers to {new} instead of {old}")
    # Documentation, defaults and hints
    DEFAULT_CHANGED = ("default_changed", _N, "default of {subject} changed: {old} -> {new}")
    DESCRIPTION_CHANGED = ("description_changed", _N, "description of {subject} changed")
    TITLE_CHANGED = ("title_changed", _N, "title of {subject} changed: {old} -> {new}")
    SCHEMA_ANNOTATION_CHANGED = (
        "schema_annotation_changed",
        _N,
        "{keyword} of {subject} changed: {old} -> {new}",
    )
    ANNOTATION_CHANGED = ("annotation_changed", _N, "annotation {keyword} changed: {old} -> {new}")
    DESTRUCTIVE_HINT_ENABLED = (
        "destructive_hint_enabled",
        _N,
        "tool is now marked destructive (destructiveHint {old} -> {new})",
    )
    READ_ONLY_HINT_DISABLED = (
        "read_only_hint_disabled",
        _N,
        "tool is no longer marked read-only (readOnlyHint {old} -> {new})",
    )
    IDEMPOTENT_HINT_DISABLED = (
        "idempotent_hint_disabled",
        _N,
        "tool is no longer marked idempotent (idempotentHint {old} -> {new})",
    )
    OPEN_WORLD_HINT_ENABLED = (
        "open_world_hint_enabled",
        _N,
        "tool now reaches an open world (openWorldHint {old} -> {new})",
    )
    TOOL_METADATA_CHANGED = ("tool_metadata_changed", _N, "{keyword} changed")
    # Clients (with ``profiles``, ``name_budget``, ``max_*_bytes`` configured)
    CLIENT_PROFILE_FAILS = (
        "client_profile_fails",
        _B,
        "now fails under profile {profile}: {detail}",
    )
    CLIENT_PROFILE_LOSES = (
        "client_profile_loses",
        _U,
        "now loses something under profile {profile}: {detail}",
    )
    NAME_OVER_BUDGET = ("name_over_budget", _B, "{detail}")
    SIZE_LIMIT_EXCEEDED = ("size_limit_exceeded", _U, "{detail}")

    def __init__(self, slug: str, severity: Severity, template: str) -> None:
        self.slug = slug
        self.severity = severity
        self.template = template

    @property
    def rule(self) -> str:
        """The stable kebab-case rule ID (config, acknowledgements, SARIF, docs/diff-rules.md).

        It is the slug with ``-`` for ``_``: slugs never change once released, so neither do IDs.
        """
        return self.slug.replace("_", "-")

    @classmethod
    def from_rule(cls, rule: str) -> ChangeKind:
        """The kind whose rule ID is ``rule``."""
        return cls.from_slug(rule.replace("-", "_"))

    @classmethod
    def from_slug(cls, slug: str) -> ChangeKind:
        """The kind whose ``slug`` is ``slug``."""
        for kind in cls:
            if kind.slug == slug:
                return kind
        raise KeyError(slug)


def show(value: JSON, limit: int = 80) -> str:
    """A compact JSON rendering of ``value`` for messages; ``absent`` for a missing keyword.

    Long values are cut at ``limit`` characters; ``Change.old``/``new`` keep them whole.
    """
    if value is ABSENT:
        return "absent"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=list)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Change:
    """One classified difference between the BASE and HEAD schema of a tool."""

    kind: ChangeKind
    tool: str
    pointer: str  # JSON pointer into the HEAD tool dict (the BASE one for removals)
    old: JSON = ABSENT
    new: JSON = ABSENT
    message: str = ""
    path: str | None = None  # source file of the field or tool, relative to the project root
    line: int = 0  # 1-based source line of the field, parameter or tool ``def``; 0: unknown
    fields: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: The gate's level for this change: the config's for its rule, else the default.
    level: Level | None = field(default=None, compare=False)
    #: The reason from the acknowledgements file when this change is acknowledged there.
    acknowledged: str | None = field(default=None, compare=False)

    @property
    def severity(self) -> Severity:
        return self.kind.severity

    @property
    def effective_level(self) -> Level:
        return self.level if self.level is not None else DEFAULT_LEVEL[self.severity]

    def sort_key(self) -> tuple[str, int, str, str, str]:
        return (self.tool, self.severity.rank, self.pointer, self.kind.slug, self.message)

    def to_json(self) -> dict[str, JSON]:
        """A JSON-ready dict; absent old/new values are omitted."""
        data: dict[str, JSON] = {
            "kind": self.kind.slug,
            "rule": self.kind.rule,
            "severity": self.severity.value,
            "tool": self.tool,
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.old is not ABSENT:
            data["old"] = self.old
        if self.new is not ABSENT:
            data["new"] = self.new
        data["path"] = self.path
        data["line"] = self.line
        data["level"] = self.effective_level.value
        data["acknowledged"] = self.acknowledged
        return data


def make_change(
    kind: ChangeKind,
    tool: str,
    pointer: str,
    *,
    old: JSON = ABSENT,
    new: JSON = ABSENT,
    old_text: str | None = None,
    new_text: str | None = None,
    message: str | None = None,
    **fields: Any,
) -> Change:
    """Build a ``Change``; its message comes from the kind's template unless given.

    ``old_text``/``new_text`` replace the JSON rendering of ``old``/``new`` in the message.
    """
    values = {
        "tool": tool,
        "subject": "the tool",
        "old": show(old) if old_text is None else old_text,
        "new": show(new) if new_text is None else new_text,
        **fields,
    }
    return Change(
        kind=kind,
        tool=tool,
        pointer=pointer,
        old=old,
        new=new,
        message=kind.template.format(**values) if message is None else message,
        fields=dict(fields),
    )
