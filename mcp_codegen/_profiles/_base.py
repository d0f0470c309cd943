"""What every client profile shares: findings, the profile record, and a pointer-aware walk.

Standard library only (the runtime imports profiles when it serves one). A transform is a pure
function ``(schema, at, report) -> schema``: ``at`` is the JSON pointer of ``schema`` inside the
tool dict, and ``report`` records what the transform changed or lost at which pointer.
"""

from __future__ import annotations

from mcp_codegen._shared.annotations import SCHEMA_ANNOTATIONS
from mcp_codegen._shared.json_pointer import escape
from mcp_codegen._shared.json_pointer import tokens as pointer_tokens
from mcp_codegen._shared.schema_transforms import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Schema = dict[str, Any]
    Transform = Callable[[Schema, str, "Report"], Schema]
    Check = Callable[[dict[str, Any], "Report"], None]

#: Finding kinds, mildest first. ``changed``: the profile accepts exactly what the original did
#: (or the runtime undoes the difference); ``lost``: an annotation is gone (nothing accepted
#: changes); ``loosened``: the client no longer checks a constraint, the server still does;
#: ``error``: the profile cannot express the tool (or it breaks a documented limit).
KINDS = ("changed", "lost", "loosened", "error")


class Finding:
    """One thing a profile transform did to one tool, at one JSON pointer of the tool dict."""

    __slots__ = ("kind", "message", "pointer", "profile", "tool", "transform")

    def __init__(
        self, profile: str, tool: str, pointer: str, transform: str, kind: str, message: str
    ) -> None:
        self.profile, self.tool, self.pointer = profile, tool, pointer
        self.transform, self.kind, self.message = transform, kind, message

    def _key(self) -> tuple[str, ...]:
        return (self.profile, self.tool, self.pointer, self.transform, self.kind, self.message)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Finding) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Finding{self._key()!r}"

    def __str__(self) -> str:
        return (
            f"{self.tool} -> {self.pointer or '/'}: {self.kind}: {self.message} "
            f"[{self.profile}: {self.transform}]"
        )

    def to_json(self) -> dict[str, str]:
        """A JSON-ready dict with fixed keys."""
        return {slot: getattr(self, slot) for slot in self.__slots__}


class Report:
    """Collects the findings of one profile on one tool; transforms call ``note``."""

    def __init__(self, profile: str, tool: str) -> None:
        self.profile, self.tool = profile, tool
        self.findings: list[Finding] = []
        #: Argument paths (property names, ``*`` for array items) where the profile turned an
        #: optional property into a required nullable one: the runtime reads ``null`` there as
        #: "absent" before it validates against the original schema.
        self.null_means_absent: list[tuple[str, ...]] = []
        self._transform = ""

    def using(self, transform: str) -> Report:
        self._transform = transform
        return self

    def note(self, pointer: str, kind: str, message: str) -> None:
        self.findings.append(
            Finding(self.profile, self.tool, pointer, self._transform, kind, message)
        )


class Profile:
    """A named list of schema transforms (applied in order to ``inputSchema``) and tool checks."""

    __slots__ = ("checks", "description", "name", "transforms")

    def __init__(
        self,
        name: str,
        description: str,
        transforms: tuple[Transform, ...],
        checks: tuple[Check, ...] = (),
    ) -> None:
        self.name, self.description = name, description
        self.transforms, self.checks = transforms, checks

    def __repr__(self) -> str:
        return f"<Profile {self.name}: {', '.join(t.__name__ for t in self.transforms)}>"


def children(node: Schema, at: str, fn: Callable[[Schema, str], Schema]) -> Schema:
    """``node`` with ``fn(subschema, pointer)`` applied to each direct subschema; ``node`` itself
    when no subschema changed (most walks change little, so most nodes are shared)."""
    result: Schema | None = None
    for key, value in node.items():
        if key in SCHEMA_VALUED:
            new = fn(value, f"{at}/{escape(key)}") if isinstance(value, dict) else value
        elif key in SCHEMA_LISTS and isinstance(value, list):
            where = f"{at}/{escape(key)}"
            items = [
                fn(item, f"{where}/{i}") if isinstance(item, dict) else item
                for i, item in enumerate(value)
            ]
            new = value if all(a is b for a, b in zip(items, value, strict=True)) else items
        elif key in SCHEMA_MAPS and isinstance(value, dict):
            where = f"{at}/{escape(key)}"
            entries = {
                name: fn(item, f"{where}/{escape(name)}") if isinstance(item, dict) else item
                for name, item in value.items()
            }
            new = value if all(entries[k] is v for k, v in value.items()) else entries
        else:
            continue
        if new is not value:
            if result is None:
                result = dict(node)
            result[key] = new
    return node if result is None else result


def rewrite(schema: Schema, at: str, visit: Callable[[Schema, str], Schema]) -> Schema:
    """Apply ``visit(node, pointer)`` to every subschema, children before their parent."""

    def walk(node: Schema, where: str) -> Schema:
        return visit(children(node, where, walk), where)

    return walk(schema, at)


def without(node: Schema, *keys: str) -> Schema:
    """``node`` minus ``keys``."""
    return {key: value for key, value in node.items() if key not in keys}


def is_object(node: Schema) -> bool:
    """Whether ``node`` describes an object (declared, or implied by ``properties``)."""
    kind = node.get("type")
    return (
        kind == "object"
        or (isinstance(kind, list) and "object" in kind)
        or (kind is None and isinstance(node.get("properties"), dict))
    )


def accepts_null(node: Schema) -> bool:
    """Whether ``node`` visibly admits ``null`` (type, enum, const or an anyOf branch)."""
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in node:
        return node["const"] is None
    if isinstance(node.get("enum"), list):
        return None in node["enum"]
    if node.get("nullable") is True:
        return True
    branches = node.get("anyOf") or node.get("oneOf")
    if isinstance(branches, list):
        return any(isinstance(b, dict) and accepts_null(b) for b in branches)
    return not node or set(node) <= {"description", "title", "default", "examples"}


def strip_keywords(
    allowed: frozenset[str], why: Callable[[str, Any], tuple[str, str] | None]
) -> Transform:
    """A transform that removes every keyword outside ``allowed``.

    ``why(keyword, value)`` gives ``(kind, message)`` for the finding, or None to drop silently.
    """

    def strip_unsupported(schema: Schema, at: str, report: Report) -> Schema:
        # Parents first: nothing is reported from inside a subschema that is dropped whole.
        def walk(node: Schema, where: str) -> Schema:
            dropped = [key for key in node if key not in allowed]
            for key in dropped:
                reason = why(key, node[key])
                if reason is not None:
                    report.note(f"{where}/{escape(key)}", *reason)
            return children(without(node, *dropped) if dropped else node, where, walk)

        return walk(schema, at)

    return strip_unsupported


def drop_kind(keyword: str) -> str:
    """The finding kind for dropping ``keyword``."""
    return "lost" if keyword in SCHEMA_ANNOTATIONS or keyword.startswith("x-") else "loosened"


def argument_path(pointer: str, at: str) -> tuple[str, ...] | None:
    """Where in the arguments a schema pointer applies: property names, ``*`` for array items.

    None for a pointer inside ``$defs`` (a definition applies wherever it is referenced).
    """
    tokens = pointer_tokens(pointer[len(at) :])
    path: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "properties" and index + 1 < len(tokens):
            path.append(tokens[index + 1])
            index += 2
        elif token == "items":
            path.append("*")
            index += 1
        elif token in ("anyOf", "oneOf", "allOf") and index + 1 < len(tokens):
            index += 2  # an alternative describes the same place
        else:
            return None
    return tuple(path)


def restore_arguments(arguments: Any, paths: list[tuple[str, ...]]) -> Any:
    """Undo a profile's "optional became required and nullable": ``null`` at ``paths`` is removed.

    Returns a new structure; ``arguments`` is not changed.
    """

    def strip(value: Any, path: tuple[str, ...]) -> Any:
        if not path:
            return value
        head, rest = path[0], path[1:]
        if head == "*":
            return [strip(item, rest) for item in value] if isinstance(value, list) else value
        if not isinstance(value, dict) or head not in value:
            return value
        if not rest:
            return value if value[head] is not None else without(value, head)
        return {**value, head: strip(value[head], rest)}

    for path in paths:
        arguments = strip(arguments, path)
    return arguments
