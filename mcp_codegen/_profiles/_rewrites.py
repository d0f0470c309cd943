"""Transforms more than one profile uses: unions, intersections, ``$ref`` and root combinators."""

from __future__ import annotations

from mcp_codegen._profiles._base import Report, escape, rewrite, without
from mcp_codegen._shared.json_pointer import definition_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mcp_codegen._profiles._base import Schema

_COMBINATORS = ("anyOf", "oneOf", "allOf")


def _tag_values(branch: Any, name: str) -> set[Any] | None:
    """The values a ``oneOf`` branch allows for its tag property ``name``, when it pins them."""
    if not isinstance(branch, dict) or name not in (branch.get("required") or ()):
        return None
    tag = (branch.get("properties") or {}).get(name)
    if not isinstance(tag, dict):
        return None
    if "const" in tag:
        return {repr(tag["const"])}
    if isinstance(tag.get("enum"), list):
        return {repr(value) for value in tag["enum"]}
    return None


def disjoint(branches: list[Any]) -> bool:
    """Whether a tag property that every branch requires and pins keeps the branches apart
    (a discriminated union): then ``anyOf`` accepts exactly what ``oneOf`` did."""
    first = branches[0] if branches else None
    if not isinstance(first, dict):
        return False
    for name in first.get("properties") or {}:
        seen: set[Any] = set()
        for branch in branches:
            values = _tag_values(branch, name)
            if values is None or values & seen:
                break
            seen |= values
        else:
            return True
    return False


def one_of_to_any_of(schema: Schema, at: str, report: Report) -> Schema:
    """``oneOf`` becomes ``anyOf`` (both OpenAI strict mode and Gemini lack ``oneOf``)."""

    def visit(node: Schema, where: str) -> Schema:
        branches = node.get("oneOf")
        if not isinstance(branches, list):
            return node
        if "anyOf" in node:
            report.note(
                f"{where}/oneOf",
                "loosened",
                "`oneOf` dropped: it sits beside an `anyOf`, and the profile has no `oneOf`",
            )
            return without(node, "oneOf")
        if disjoint(branches):
            report.note(
                f"{where}/oneOf",
                "changed",
                "`oneOf` became `anyOf`: a required tag keeps the alternatives apart",
            )
        else:
            report.note(
                f"{where}/oneOf",
                "loosened",
                "`oneOf` became `anyOf`: a value matching several alternatives is no longer "
                "rejected by the client",
            )
        return {("anyOf" if key == "oneOf" else key): value for key, value in node.items()}

    return rewrite(schema, at, visit)


def merge(parent: Schema, part: Schema) -> Schema | None:
    """``{**parent, **part}`` when that accepts exactly what ``allOf: [part]`` beside ``parent``
    did; None when a keyword conflicts."""
    merged = dict(parent)
    for key, value in part.items():
        if key not in merged or merged[key] == value:
            merged[key] = value
        elif key == "properties" and isinstance(value, dict) and isinstance(merged[key], dict):
            common = value.keys() & merged[key].keys()
            if any(value[name] != merged[key][name] for name in common):
                return None
            merged[key] = {**merged[key], **value}
        elif key == "required" and isinstance(value, list) and isinstance(merged[key], list):
            merged[key] = list(dict.fromkeys([*merged[key], *value]))
        elif key in ("title", "description"):
            continue  # the parent's own annotation wins
        else:
            return None
    # additionalProperties sees only the properties declared beside it.
    for one, other in ((parent, part), (part, parent)):
        if "additionalProperties" in one and set(other.get("properties") or {}) - set(
            one.get("properties") or {}
        ):
            return None
    return merged


def merge_all_of(schema: Schema, at: str, report: Report) -> Schema:
    """Fold ``allOf`` parts into their parent where no keyword conflicts; drop the rest."""

    def visit(node: Schema, where: str) -> Schema:
        parts = node.get("allOf")
        if not isinstance(parts, list):
            return node
        merged = without(node, "allOf")
        for index, part in enumerate(parts):
            folded = merge(merged, part) if isinstance(part, dict) else None
            if folded is None:
                report.note(
                    f"{where}/allOf/{index}",
                    "loosened",
                    "`allOf` part dropped: it conflicts with its parent, and the profile has no "
                    "`allOf`",
                )
            else:
                merged = folded
        report.note(f"{where}/allOf", "changed", "`allOf` folded into its parent")
        return merged

    return rewrite(schema, at, visit)


def root_combinators(schema: Schema, at: str, report: Report) -> Schema:
    """No ``anyOf`` / ``oneOf`` / ``allOf`` at the root of an input schema."""
    result = dict(schema)
    for keyword in _COMBINATORS:
        branches = result.get(keyword)
        if not isinstance(branches, list):
            continue
        rest = without(result, keyword)
        if keyword == "allOf" or len(branches) == 1:
            folded = rest
            for part in branches:
                folded = (
                    merge(folded, part) if isinstance(part, dict) and folded is not None else None
                )
            if folded is not None:
                report.note(f"{at}/{keyword}", "changed", f"root `{keyword}` folded into the root")
                result = folded
                continue
        report.note(
            f"{at}/{keyword}",
            "loosened",
            f"root `{keyword}` dropped: the client rejects it at the root; the alternatives are "
            "no longer checked by the client (the server still checks them)",
        )
        result = rest
    return result


def unravel_ref_siblings(schema: Schema, at: str, report: Report) -> Schema:
    """A ``$ref`` with sibling keywords becomes its definition merged with the siblings."""
    defs = schema.get("$defs") or {}

    def visit(node: Schema, where: str) -> Schema:
        ref = node.get("$ref")
        if not isinstance(ref, str) or len(node) == 1 or not ref.startswith("#/$defs/"):
            return node
        name = definition_name(ref, ("#/$defs/",)) or ""
        if not isinstance(defs.get(name), dict):
            return node
        report.note(
            f"{where}/$ref", "changed", f"`$ref` with sibling keywords replaced by {escape(name)!r}"
        )
        return {**defs[name], **without(node, "$ref")}

    return rewrite(schema, at, visit)
