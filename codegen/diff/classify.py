"""Classify the differences between two tool dicts from JSON Schema semantics.

Inputs are contravariant: a change is compatible when the new input schema accepts every instance
the old one accepted (the server still accepts every old call). Outputs are covariant: a change is
compatible when every instance of the new output schema is an instance of the old one (clients
still understand every result). A change whose effect cannot be decided gets an UNKNOWN kind.

The walk compares one JSON Schema keyword family at a time with small named functions
(``_compare_types``, ``_compare_values``, ``_compare_properties``, ...), following ``$ref`` into
``$defs`` with a memo of visited location pairs, so recursive types terminate.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction
from typing import Any
from urllib.parse import unquote

from codegen.diff.model import ABSENT, JSON, Change, ChangeKind, Severity, make_change, show
from codegen.diff.reader import Side, ToolEntry
from codegen.runtime._protocols import NATURAL_KEY

K = ChangeKind
Schema = dict[str, Any]
TypeSet = frozenset[str] | None  # None: no type constraint (every JSON type)

ALL_TYPES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})

#: Keywords that never change which instances validate. Compared for review, not for compatibility.
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
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
    }
)
#: Structural keywords handled by the walk itself, not compared as values.
STRUCTURAL = frozenset({"$defs", "definitions", "$ref"})
LOWER_COUNTS = ("minLength", "minItems", "minProperties", "minContains")
UPPER_COUNTS = ("maxLength", "maxItems", "maxProperties", "maxContains")
#: Keywords with a dedicated comparison below; everything else that differs is UNKNOWN.
HANDLED = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "format",
        "uniqueItems",
        "propertyNames",
        *LOWER_COUNTS,
        *UPPER_COUNTS,
    }
)
#: readOnlyHint/destructiveHint defaults from the MCP spec (ToolAnnotations).
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


class Direction(Enum):
    INPUT = "input"  # contravariant
    OUTPUT = "output"  # covariant


class Effect(Enum):
    """What a keyword change does to the set of valid instances."""

    NARROWS = "narrows"
    WIDENS = "widens"
    BOTH = "both"  # some instances gained and some lost


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def json_type(value: JSON) -> str:
    """The JSON Schema type name of a JSON value (an integral float is an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def value_key(value: JSON) -> str:
    """A hashable identity with JSON equality: ``1 == 1.0`` but ``1 != true``."""

    def normal(item: JSON) -> JSON:
        if isinstance(item, bool) or item is None or isinstance(item, str):
            return item
        if isinstance(item, int | float):
            return ["#num", str(Fraction(item))] if math.isfinite(item) else ["#num", str(item)]
        if isinstance(item, list | tuple):
            return [normal(x) for x in item]
        return {str(k): normal(v) for k, v in item.items()}

    return json.dumps(normal(value), sort_keys=True, ensure_ascii=False)


def json_equal(first: JSON, second: JSON) -> bool:
    """Equality of JSON values: like ``==``, except that ``true`` is not ``1``."""
    if isinstance(first, bool) or isinstance(second, bool):
        return type(first) is type(second) and first == second
    if isinstance(first, dict):
        return (
            isinstance(second, dict)
            and first.keys() == second.keys()
            and all(json_equal(first[key], second[key]) for key in first)
        )
    if isinstance(first, list | tuple):
        return (
            isinstance(second, list | tuple)
            and len(first) == len(second)
            and all(json_equal(a, b) for a, b in zip(first, second, strict=True))
        )
    return bool(first == second)


def _covers(types: TypeSet, name: str) -> bool:
    if types is None:
        return True
    return name in types or (name == "integer" and "number" in types)


def _intersect(first: TypeSet, second: TypeSet) -> TypeSet:
    if first is None:
        return second
    if second is None:
        return first
    kept = {name for name in first if _covers(second, name)}
    kept |= {"integer" for name in second if name == "integer" and _covers(first, "integer")}
    return frozenset(kept)


def _union(sets: Iterable[TypeSet]) -> TypeSet:
    merged: set[str] = set()
    for types in sets:
        if types is None:
            return None
        merged |= types
    return frozenset(merged)


def show_types(types: TypeSet) -> str:
    if types is None:
        return "any"
    if not types:
        return "nothing"
    order = ["object", "array", "string", "number", "integer", "boolean", "null"]
    return " | ".join(name for name in order if name in types)


def _type_effect(old: TypeSet, new: TypeSet) -> Effect | None:
    lost, gained = _lost(old, new), _lost(new, old)
    if lost and gained:
        return Effect.BOTH
    if lost:
        return Effect.NARROWS
    if gained:
        return Effect.WIDENS
    return None


@dataclass
class _Doc:
    """A schema document (inputSchema or outputSchema) and its pointer inside the tool dict."""

    root: JSON
    base: str  # "/inputSchema" or "/outputSchema"

    def resolve(self, ref: str) -> tuple[JSON, str] | None:
        """The target of a local ``$ref`` and its pointer, or None when it cannot be resolved."""
        if not ref.startswith("#"):
            return None
        fragment = ref[1:]
        if fragment and not fragment.startswith("/"):
            return None  # $anchor references are not produced by the generator
        node = self.root
        for token in fragment.split("/")[1:] if fragment else []:
            token = _unescape(token)
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node, self.base + fragment


def _as_schema(node: JSON) -> Schema:
    """Boolean schemas as dicts: ``true`` accepts everything, ``false`` nothing."""
    if node is True:
        return {}
    if node is False:
        return {"not": {}}
    return node if isinstance(node, dict) else {}


def _is_false(node: Schema) -> bool:
    return node.get("not") == {} and len(node) == 1


@dataclass
class _Node:
    """A schema with its ``$ref`` chain followed. Pointers are JSON pointers into the tool dict."""

    schema: Schema  # the target's keywords, overlaid with the referring site's assertions
    pointer: str  # where the assertions live (the target, for a reference)
    ann_pointers: dict[str, str]  # annotation keyword -> where its effective value lives
    refs: tuple[str, ...]  # the $ref strings followed, outermost first
    unresolved: str | None = None


class _Walk:
    """Compares two schema documents of one tool in one direction."""

    def __init__(self, tool: str, direction: Direction, old: _Doc, new: _Doc) -> None:
        self.tool = tool
        self.direction = direction
        self.old_doc = old
        self.new_doc = new
        self.changes: list[Change] = []
        self.seen: set[tuple[str, str, str, str]] = set()
        roots = (_dict(old.root), _dict(new.root))
        self.defs_equal = all(
            json_equal(roots[0].get(k), roots[1].get(k)) for k in ("$defs", "definitions")
        )

    # --- reporting ---------------------------------------------------------------------------

    def subject(self, label: str) -> str:
        """How messages name the schema at ``label``: ``input 'limit'``, ``the output``."""
        return f"{self.direction.value} {label!r}" if label else f"the {self.direction.value}"

    def emit(self, kind: ChangeKind, pointer: str, label: str, **fields: Any) -> None:
        fields.setdefault("subject", self.subject(label))
        self.changes.append(make_change(kind, self.tool, pointer, **fields))

    def emit_effect(
        self, effect: Effect, pointer: str, label: str, keyword: str, old: JSON, new: JSON
    ) -> None:
        """A constraint keyword changed with a known effect on the set of valid instances."""
        if self.direction is Direction.INPUT:
            tighter = effect is not Effect.WIDENS
            kind = K.INPUT_CONSTRAINT_TIGHTENED if tighter else K.INPUT_CONSTRAINT_LOOSENED
        else:
            looser = effect is not Effect.NARROWS
            kind = K.OUTPUT_CONSTRAINT_LOOSENED if looser else K.OUTPUT_CONSTRAINT_TIGHTENED
        self.emit(kind, pointer, label, keyword=keyword, old=old, new=new)

    # --- resolution --------------------------------------------------------------------------

    def resolve(self, raw: JSON, pointer: str, doc: _Doc) -> _Node:
        """Follow ``$ref`` (and a single-branch ``allOf``) to the schema that applies.

        Assertions written beside a ``$ref`` are laid over the target's; annotations beside it
        win over the target's (they describe this use of the definition).
        """
        schema = _as_schema(raw)
        ann_pointers = {key: pointer for key in schema if key in ANNOTATIONS}
        annotations: Schema = {key: schema[key] for key in schema if key in ANNOTATIONS}
        refs: list[str] = []
        overlay: Schema = {}
        for _ in range(64):  # longer chains of pure references are cycles
            ref = schema.get("$ref")
            branches = schema.get("allOf")
            if isinstance(ref, str):
                target = doc.resolve(ref)
                if target is None:
                    return _Node(schema, pointer, ann_pointers, tuple(refs), unresolved=ref)
                refs.append(ref)
                overlay.update({k: v for k, v in _assertions(schema).items() if k != "$ref"})
                schema, pointer = _as_schema(target[0]), target[1]
            elif isinstance(branches, list) and len(branches) == 1:
                overlay.update({k: v for k, v in _assertions(schema).items() if k != "allOf"})
                schema, pointer = _as_schema(branches[0]), f"{pointer}/allOf/0"
            else:
                break
            for key in schema:
                if key in ANNOTATIONS and key not in annotations:
                    annotations[key] = schema[key]
                    ann_pointers[key] = pointer
        merged = _assertions(schema)
        merged.update(overlay)
        merged.update(annotations)
        return _Node(merged, pointer, ann_pointers, tuple(refs))

    def type_set(self, raw: JSON, doc: _Doc, depth: int = 0) -> TypeSet:
        """The JSON types an instance of ``raw`` can have; None when unconstrained."""
        node = self.resolve(raw, "", doc)
        schema = node.schema
        if node.unresolved is not None or depth > 32:
            return None
        if _is_false(schema):
            return frozenset()
        types: TypeSet = None
        declared = schema.get("type")
        if isinstance(declared, str):
            types = frozenset({declared})
        elif isinstance(declared, list):
            types = frozenset(t for t in declared if isinstance(t, str))
        if "const" in schema:
            types = _intersect(types, frozenset({json_type(schema["const"])}))
        if isinstance(schema.get("enum"), list):
            types = _intersect(types, frozenset(json_type(v) for v in schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                branch_types = (self.type_set(b, doc, depth + 1) for b in schema[key])
                types = _intersect(types, _union(branch_types))
        if isinstance(schema.get("allOf"), list):
            for branch in schema["allOf"]:
                types = _intersect(types, self.type_set(branch, doc, depth + 1))
        return types

    def unchanged(self, old: JSON, new: JSON) -> bool:
        """Equal subtrees are unchanged, unless a ``$ref`` inside may lead to changed targets."""
        if old is ABSENT or new is ABSENT or not json_equal(old, new):
            return old is new
        return self.defs_equal or '"$ref"' not in json.dumps(old, default=str)

    # --- the walk ----------------------------------------------------------------------------

    def compare(self, old_raw: JSON, new_raw: JSON, optr: str, nptr: str, label: str) -> None:
        """Compare the schemas found at ``optr`` (BASE) and ``nptr`` (HEAD)."""
        if self.unchanged(old_raw, new_raw):
            return
        old = self.resolve(old_raw, optr, self.old_doc)
        new = self.resolve(new_raw, nptr, self.new_doc)
        for node in (old, new):
            if node.unresolved is not None:
                self.emit(K.REF_UNRESOLVED, f"{node.pointer}/$ref", label, ref=node.unresolved)
                return
        self._compare_annotations(old, new, label)
        if old.refs and new.refs and old.refs[-1] != new.refs[-1]:
            self.emit(K.REF_RETARGETED, f"{nptr}/$ref", label, old=old.refs[-1], new=new.refs[-1])
        key = (old.pointer, new.pointer, _key(old.schema), _key(new.schema))
        if key in self.seen:
            return  # a recursive type: this pair is being (or has been) compared
        self.seen.add(key)
        if any(k in s for s in (old.schema, new.schema) for k in ("anyOf", "oneOf")):
            self._compare_union(old, new, label)
            old = replace(old, schema=_rest(old.schema))
            new = replace(new, schema=_rest(new.schema))
        else:
            self._compare_types(old, new, label)
        self._compare_values(old.schema, new.schema, new.pointer, label)
        self._compare_all_of(old, new, label)
        self._compare_properties(old, new, label)
        self._compare_open_schema(old, new, "additionalProperties", f"{label}.*" if label else "*")
        self._compare_property_names(old, new, label)
        self._compare_items(old, new, label)
        self._compare_counts(old.schema, new.schema, new.pointer, label)
        self._compare_numeric_bounds(old, new, label)
        self._compare_multiple_of(old.schema, new.schema, new.pointer, label)
        self._compare_unique(old.schema, new.schema, new.pointer, label)
        self._compare_string_assertion(old, new, label, "pattern", K.PATTERN_CHANGED)
        self._compare_string_assertion(old, new, label, "format", K.FORMAT_CHANGED)
        self._compare_unhandled(old.schema, new.schema, new.pointer, label)

    # --- annotations -------------------------------------------------------------------------

    def _compare_annotations(self, old: _Node, new: _Node, label: str) -> None:
        for keyword in sorted(ANNOTATIONS):
            before = old.schema.get(keyword, ABSENT)
            after = new.schema.get(keyword, ABSENT)
            if _same_value(before, after):
                continue
            where = new.ann_pointers.get(keyword) or old.ann_pointers.get(keyword, new.pointer)
            pointer = f"{where}/{keyword}"
            if keyword == "default":
                self.emit(K.DEFAULT_CHANGED, pointer, label, old=before, new=after)
            elif keyword == "description":
                self.emit(K.DESCRIPTION_CHANGED, pointer, label, old=before, new=after)
            elif keyword == "title":
                self.emit(K.TITLE_CHANGED, pointer, label, old=before, new=after)
            else:
                kind = K.SCHEMA_ANNOTATION_CHANGED
                self.emit(kind, pointer, label, keyword=keyword, old=before, new=after)

    # --- type, enum and const ----------------------------------------------------------------

    def _compare_types(self, old: _Node, new: _Node, label: str) -> None:
        if _values(old.schema) is not None and _values(new.schema) is not None:
            return  # both sides enumerate their values: _compare_values is exact
        before = self.type_set(old.schema, self.old_doc)
        after = self.type_set(new.schema, self.new_doc)
        effect = _type_effect(before, after)
        if effect is None:
            return
        if self.direction is Direction.INPUT:
            kind = {
                Effect.NARROWS: K.INPUT_TYPE_NARROWED,
                Effect.WIDENS: K.INPUT_TYPE_WIDENED,
                Effect.BOTH: K.INPUT_TYPE_CHANGED,
            }[effect]
        else:
            kind = K.OUTPUT_TYPE_NARROWED if effect is Effect.NARROWS else K.OUTPUT_TYPE_CHANGED
        self.emit(
            kind,
            f"{new.pointer}/type",
            label,
            old=show_types(before),
            new=show_types(after),
            old_text=show_types(before),
            new_text=show_types(after),
        )

    def _compare_values(self, o: Schema, n: Schema, pointer: str, label: str) -> None:
        before, after = _values(o), _values(n)
        if before is None and after is None:
            return
        keyword = "enum" if "enum" in n or "enum" in o else "const"
        where = f"{pointer}/{keyword}"
        if before is None or after is None:
            effect = Effect.NARROWS if before is None else Effect.WIDENS
            self.emit_effect(effect, where, label, keyword, _raw_values(o), _raw_values(n))
            return
        inputs = self.direction is Direction.INPUT
        for value in (v for k, v in before.items() if k not in after):
            kind = K.INPUT_ENUM_VALUE_REMOVED if inputs else K.OUTPUT_ENUM_VALUE_REMOVED
            self.emit(kind, where, label, old=value, value=_show(value))
        for value in (v for k, v in after.items() if k not in before):
            kind = K.INPUT_ENUM_VALUE_ADDED if inputs else K.OUTPUT_ENUM_VALUE_ADDED
            self.emit(kind, where, label, new=value, value=_show(value))

    # --- unions ------------------------------------------------------------------------------

    def _compare_union(self, old: _Node, new: _Node, label: str) -> None:
        """anyOf/oneOf: compare the union's type set, then pair up branches and compare those.

        A branch removed from an input union, or added to an output union, narrows or widens
        the wrong way only if no remaining branch covers it, which the schemas cannot tell:
        unless its JSON types vanished (a type change), that is reported as UNKNOWN.
        """
        start = len(self.changes)
        old_types = self.type_set(old.schema, self.old_doc)
        new_types = self.type_set(new.schema, self.new_doc)
        self._compare_types(old, new, label)
        old_branches, old_kw = _branches(old)
        new_branches, new_kw = _branches(new)
        keyword = new_kw or old_kw or "anyOf"
        # oneOf is exclusive: adding or removing a branch may flip overlapping instances, unless
        # the branches are told apart by their JSON types.
        exact = "oneOf" not in (old_kw, new_kw) or (
            self._disjoint(old_branches, self.old_doc)
            and self._disjoint(new_branches, self.new_doc)
        )
        pairs, lost, gained = self._pair_branches(old_branches, new_branches)
        for (ob, optr), (nb, nptr) in pairs:
            self.compare(ob, nb, optr, nptr, label)
        inputs = self.direction is Direction.INPUT
        undecided: list[str] = []
        if not exact and any(c.severity is not Severity.NOTABLE for c in self.changes[start:]):
            # Even widening one overlapping branch can make an instance match two of them.
            undecided.append("branches of an overlapping oneOf changed")
        for branch, _ in lost:
            if _lost(self.type_set(branch, self.old_doc), new_types):
                continue  # its types are gone: reported as a type change already
            if not inputs and exact:
                text = f"output union branch {_short(branch)} removed"
                self.emit(
                    K.OUTPUT_TYPE_NARROWED,
                    f"{new.pointer}/{keyword}",
                    label,
                    old=branch,
                    message=text,
                )
            else:
                undecided.append(f"branch {_short(branch)} removed")
        for branch, ptr in gained:
            if _lost(self.type_set(branch, self.new_doc), old_types):
                continue
            if inputs and exact:
                text = f"input union branch {_short(branch)} added"
                self.emit(K.INPUT_TYPE_WIDENED, ptr, label, new=branch, message=text)
            else:
                undecided.append(f"branch {_short(branch)} added")
        if undecided:
            detail = "; ".join(undecided)
            self.emit(K.UNION_CHANGED, f"{new.pointer}/{keyword}", label, detail=detail)

    def _disjoint(self, branches: list[tuple[JSON, str]], doc: _Doc) -> bool:
        seen: set[str] = set()
        for branch, _ in branches:
            types = self.type_set(branch, doc)
            if types is None:
                return False
            numeric = {"integer", "number"} if types & {"integer", "number"} else set()
            covered = set(types) | numeric
            if covered & seen:
                return False
            seen |= covered
        return True

    def _pair_branches(
        self, old: list[tuple[JSON, str]], new: list[tuple[JSON, str]]
    ) -> tuple[list[tuple[Branch, Branch]], list[Branch], list[Branch]]:
        """Pair branches: equal ones, then same ``$ref``, then same type set, then a lone pair."""
        pairs: list[tuple[Branch, Branch]] = []
        old_left, new_left = list(old), list(new)

        def take(match: Any, unique: bool) -> None:
            """Pair by ``match``; ``unique`` when only one-to-one matches say anything."""
            for ob in list(old_left):
                candidates = [nb for nb in new_left if match(ob, nb)]
                if not candidates or (unique and len(candidates) > 1):
                    continue
                if unique and len([x for x in old_left if match(x, candidates[0])]) > 1:
                    continue
                pairs.append((ob, candidates[0]))
                old_left.remove(ob)
                new_left.remove(candidates[0])

        # Equivalent branches and branches naming the same definition are interchangeable.
        take(self._equivalent, False)
        take(lambda a, b: _ref(a[0]) is not None and _ref(a[0]) == _ref(b[0]), False)
        # Any pairing is sound for anyOf (each pair is compared); a unique match is likelier right.
        take(
            lambda a, b: self.type_set(a[0], self.old_doc) == self.type_set(b[0], self.new_doc),
            True,
        )
        take(
            lambda a, b: self.type_set(a[0], self.old_doc) == self.type_set(b[0], self.new_doc),
            False,
        )
        if len(old_left) == 1 and len(new_left) == 1:
            pairs.append((old_left.pop(), new_left.pop()))
        return pairs, old_left, new_left

    def _equivalent(self, old: Branch, new: Branch) -> bool:
        """Whether comparing the two branches on their own finds no change at all."""
        if self.unchanged(old[0], new[0]):
            return True
        trial = _Walk(self.tool, self.direction, self.old_doc, self.new_doc)
        trial.compare(old[0], new[0], old[1], new[1], "")
        return not trial.changes

    def _compare_all_of(self, old: _Node, new: _Node, label: str) -> None:
        before, after = old.schema.get("allOf", ABSENT), new.schema.get("allOf", ABSENT)
        if self.unchanged(before, after):
            return
        if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
            # Comparing conjuncts pairwise is sound for widening; a narrowed conjunct may be
            # redundant with another one, so the report errs towards breaking.
            for index, (ob, nb) in enumerate(zip(before, after, strict=True)):
                optr, nptr = f"{old.pointer}/allOf/{index}", f"{new.pointer}/allOf/{index}"
                self.compare(ob, nb, optr, nptr, label)
            return
        self._undecided(old.schema, new.schema, new.pointer, label, "allOf")

    # --- objects -----------------------------------------------------------------------------

    def _compare_properties(self, old: _Node, new: _Node, label: str) -> None:
        o, n = old.schema, new.schema
        if not any(k in s for s in (o, n) for k in ("properties", "required")):
            return
        old_props, new_props = _dict(o.get("properties")), _dict(n.get("properties"))
        old_required, new_required = _names(o.get("required")), _names(n.get("required"))
        names = dict.fromkeys([*old_props, *old_required, *new_props, *new_required])
        inputs = self.direction is Direction.INPUT
        old_closed = _is_closed(o.get("additionalProperties", True))
        for name in names:
            child = f"{label}.{name}" if label else name
            optr = f"{old.pointer}/properties/{_escape(name)}"
            nptr = f"{new.pointer}/properties/{_escape(name)}"
            in_old = name in old_props or name in old_required
            in_new = name in new_props or name in new_required
            if not in_new:
                kind = K.INPUT_REMOVED if inputs else K.OUTPUT_FIELD_REMOVED
                self.emit(kind, nptr, label, name=child, old=old_props.get(name, ABSENT))
                continue
            if not in_old:
                if inputs:
                    required = name in new_required
                    kind = K.INPUT_REQUIRED_ADDED if required else K.INPUT_OPTIONAL_ADDED
                else:
                    kind = K.OUTPUT_FIELD_ADDED_TO_CLOSED if old_closed else K.OUTPUT_FIELD_ADDED
                self.emit(kind, nptr, label, name=child, new=new_props.get(name, ABSENT))
                continue
            was, now = name in old_required, name in new_required
            if was != now:
                if inputs:
                    kind = K.INPUT_MADE_REQUIRED if now else K.INPUT_MADE_OPTIONAL
                else:
                    kind = K.OUTPUT_FIELD_MADE_REQUIRED if now else K.OUTPUT_FIELD_MADE_OPTIONAL
                self.emit(kind, f"{new.pointer}/required", label, name=child, old=was, new=now)
            self.compare(old_props.get(name, True), new_props.get(name, True), optr, nptr, child)

    def _compare_open_schema(self, old: _Node, new: _Node, keyword: str, label: str) -> None:
        """``additionalProperties`` / ``items``: absent or true = anything, false = nothing."""
        before = old.schema.get(keyword, ABSENT)
        after = new.schema.get(keyword, ABSENT)
        b = True if before is ABSENT else before
        a = True if after is ABSENT else after
        if self.unchanged(b, a):
            return
        pointer = f"{new.pointer}/{keyword}"
        if _is_closed(b) != _is_closed(a):
            effect = Effect.WIDENS if _is_closed(b) else Effect.NARROWS
            self.emit_effect(effect, pointer, label, keyword, before, after)
        elif not _is_closed(b):
            self.compare(b, a, f"{old.pointer}/{keyword}", pointer, label)

    def _compare_property_names(self, old: _Node, new: _Node, label: str) -> None:
        """``propertyNames``: a schema every key (a string) must match; absent allows any."""
        any_key = {"type": "string"}
        before = old.schema.get("propertyNames", any_key)
        after = new.schema.get("propertyNames", any_key)
        optr, nptr = f"{old.pointer}/propertyNames", f"{new.pointer}/propertyNames"
        self.compare(before, after, optr, nptr, f"{label} (keys)" if label else "(keys)")

    # --- arrays ------------------------------------------------------------------------------

    def _compare_items(self, old: _Node, new: _Node, label: str) -> None:
        if isinstance(old.schema.get("items"), list) or isinstance(new.schema.get("items"), list):
            self._undecided(old.schema, new.schema, new.pointer, label, "items")  # draft 2019
        else:
            self._compare_open_schema(old, new, "items", f"{label}[]")
        before = old.schema.get("prefixItems", ABSENT)
        after = new.schema.get("prefixItems", ABSENT)
        if self.unchanged(before, after):
            return
        if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
            for index, (ob, nb) in enumerate(zip(before, after, strict=True)):
                optr = f"{old.pointer}/prefixItems/{index}"
                nptr = f"{new.pointer}/prefixItems/{index}"
                self.compare(ob, nb, optr, nptr, f"{label}[{index}]")
            return
        self._undecided(old.schema, new.schema, new.pointer, label, "prefixItems")

    # --- constraints -------------------------------------------------------------------------

    def _compare_counts(self, o: Schema, n: Schema, pointer: str, label: str) -> None:
        for keyword in (*LOWER_COUNTS, *UPPER_COUNTS):
            before, after = o.get(keyword, ABSENT), n.get(keyword, ABSENT)
            if before == after:
                continue
            lower = keyword in LOWER_COUNTS
            effect = _bound_effect(_count_bound(before), _count_bound(after), lower)
            if effect is not None:
                self.emit_effect(effect, f"{pointer}/{keyword}", label, keyword, before, after)

    def _compare_numeric_bounds(self, old: _Node, new: _Node, label: str) -> None:
        integral = all(
            (types := self.type_set(node.schema, doc)) is not None and types <= {"integer"}
            for node, doc in ((old, self.old_doc), (new, self.new_doc))
        )
        for lower, keywords in (
            (True, ("minimum", "exclusiveMinimum")),
            (False, ("maximum", "exclusiveMaximum")),
        ):
            before = {k: old.schema[k] for k in keywords if _is_number(old.schema.get(k))}
            after = {k: new.schema[k] for k in keywords if _is_number(new.schema.get(k))}
            if before == after:
                continue
            effect = _bound_effect(
                _effective_bound(before, lower, integral),
                _effective_bound(after, lower, integral),
                lower,
            )
            if effect is None:
                continue
            used = [k for k in keywords if k in before or k in after]
            if len(used) == 1:
                old_value: JSON = before.get(used[0], ABSENT)
                new_value: JSON = after.get(used[0], ABSENT)
            else:
                old_value, new_value = before or ABSENT, after or ABSENT
            pointer = f"{new.pointer}/{used[0]}"
            self.emit_effect(effect, pointer, label, "/".join(used), old_value, new_value)

    def _compare_multiple_of(self, o: Schema, n: Schema, pointer: str, label: str) -> None:
        before, after = o.get("multipleOf", ABSENT), n.get("multipleOf", ABSENT)
        if before == after:
            return
        if not _is_number(before):
            effect = Effect.NARROWS
        elif not _is_number(after):
            effect = Effect.WIDENS
        else:
            old_step, new_step = _fraction(before), _fraction(after)
            if (old_step / new_step).denominator == 1:
                effect = Effect.WIDENS  # every multiple of the old step is one of the new step
            elif (new_step / old_step).denominator == 1:
                effect = Effect.NARROWS
            else:
                effect = Effect.BOTH
        self.emit_effect(effect, f"{pointer}/multipleOf", label, "multipleOf", before, after)

    def _compare_unique(self, o: Schema, n: Schema, pointer: str, label: str) -> None:
        before, after = o.get("uniqueItems") is True, n.get("uniqueItems") is True
        if before != after:
            self.emit_effect(
                Effect.NARROWS if after else Effect.WIDENS,
                f"{pointer}/uniqueItems",
                label,
                "uniqueItems",
                o.get("uniqueItems", ABSENT),
                n.get("uniqueItems", ABSENT),
            )

    def _compare_string_assertion(
        self, old: _Node, new: _Node, label: str, keyword: str, kind: ChangeKind
    ) -> None:
        """``pattern``/``format``: adding one narrows, removing widens, replacing is UNKNOWN."""
        before, after = old.schema.get(keyword, ABSENT), new.schema.get(keyword, ABSENT)
        if before == after:
            return
        pointer = f"{new.pointer}/{keyword}"
        if before is ABSENT or after is ABSENT:
            effect = Effect.NARROWS if before is ABSENT else Effect.WIDENS
            self.emit_effect(effect, pointer, label, keyword, before, after)
        else:
            self.emit(kind, pointer, label, old=before, new=after)

    def _compare_unhandled(self, o: Schema, n: Schema, pointer: str, label: str) -> None:
        for keyword in sorted(set(o) | set(n)):
            if keyword in HANDLED or keyword in ANNOTATIONS or keyword in STRUCTURAL:
                continue
            if keyword.startswith("x-"):
                continue  # vendor extensions never affect validation
            self._undecided(o, n, pointer, label, keyword)

    def _undecided(self, o: Schema, n: Schema, pointer: str, label: str, keyword: str) -> None:
        before, after = o.get(keyword, ABSENT), n.get(keyword, ABSENT)
        if not self.unchanged(before, after):
            kind = K.KEYWORD_UNDECIDED
            self.emit(kind, f"{pointer}/{keyword}", label, keyword=keyword, old=before, new=after)


Branch = tuple[JSON, str]


# --- helpers -------------------------------------------------------------------------------------


def _same_value(first: JSON, second: JSON) -> bool:
    if first is ABSENT or second is ABSENT:
        return first is second
    return value_key(first) == value_key(second)


def _key(schema: Schema) -> str:
    return json.dumps(_assertions(schema), sort_keys=True, default=str)


def _lost(types: TypeSet, other: TypeSet) -> bool:
    """Whether some type in ``types`` is not covered by ``other``."""
    return any(not _covers(other, name) for name in (ALL_TYPES if types is None else types))


def _rest(schema: Schema) -> Schema:
    """What of a union node is compared beside its branches: the keywords next to anyOf/oneOf.

    A plain schema facing a union became that union's single branch, so nothing is left of it.
    """
    if "anyOf" in schema or "oneOf" in schema:
        return {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "type")}
    return {}


def _ref(schema: JSON) -> str | None:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    return ref if isinstance(ref, str) else None


def _count_bound(value: JSON) -> Bound:
    return (_fraction(value), False) if _is_number(value) else None


def _show(value: JSON) -> str:
    return json.dumps(value, ensure_ascii=False)


def _short(value: JSON, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _assertions(schema: Schema) -> Schema:
    return {k: v for k, v in schema.items() if k not in ANNOTATIONS}


def _values(schema: Schema) -> dict[str, JSON] | None:
    """The values allowed by ``const`` / ``enum`` and ``type``, by JSON identity, or None."""
    allowed: dict[str, JSON] | None = None
    if "const" in schema:
        allowed = {value_key(schema["const"]): schema["const"]}
    if isinstance(schema.get("enum"), list):
        listed = {value_key(v): v for v in schema["enum"]}
        allowed = listed if allowed is None else {k: v for k, v in allowed.items() if k in listed}
    declared = schema.get("type")
    if allowed is not None and isinstance(declared, str | list):
        types = frozenset([declared] if isinstance(declared, str) else declared)
        allowed = {k: v for k, v in allowed.items() if _covers(types, json_type(v))}
    return allowed


def _raw_values(schema: Schema) -> JSON:
    if "enum" in schema:
        return schema["enum"]
    if "const" in schema:
        return schema["const"]
    return ABSENT


def _branches(node: _Node) -> tuple[list[tuple[JSON, str]], str | None]:
    """A union's branches with their pointers; a plain schema is a union of itself."""
    for keyword in ("anyOf", "oneOf"):
        branches = node.schema.get(keyword)
        if isinstance(branches, list):
            return [(b, f"{node.pointer}/{keyword}/{i}") for i, b in enumerate(branches)], keyword
    single = {
        k: v
        for k, v in node.schema.items()
        if k not in ANNOTATIONS and k not in STRUCTURAL - {"$ref"}
    }
    return [(single, node.pointer)], None


def _dict(value: JSON) -> dict[str, JSON]:
    return value if isinstance(value, dict) else {}


def _names(value: JSON) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _is_closed(value: JSON) -> bool:
    return value is False or (isinstance(value, dict) and _is_false(value))


def _is_number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fraction(value: int | float) -> Fraction:
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


Bound = tuple[Fraction, bool] | None  # (value, exclusive); None: unbounded


def _effective_bound(keywords: Mapping[str, JSON], lower: bool, integral: bool) -> Bound:
    """The tightest bound among ``minimum``/``exclusiveMinimum`` (or the maxima)."""
    bounds: list[tuple[Fraction, bool]] = []
    for keyword, value in keywords.items():
        exclusive = keyword.startswith("exclusive")
        number = _fraction(value)
        if integral:  # over integers, "> 2" is ">= 3" and ">= 2.5" is ">= 3"
            if lower:
                number = Fraction(math.floor(number) + 1 if exclusive else math.ceil(number))
            else:
                number = Fraction(math.ceil(number) - 1 if exclusive else math.floor(number))
            exclusive = False
        bounds.append((number, exclusive))
    if not bounds:
        return None
    if lower:
        return max(bounds, key=lambda b: (b[0], b[1]))
    return min(bounds, key=lambda b: (b[0], not b[1]))


def _bound_effect(before: Bound, after: Bound, lower: bool) -> Effect | None:
    if before == after:
        return None
    if before is None:
        return Effect.NARROWS
    if after is None:
        return Effect.WIDENS
    if lower:
        tighter = after[0] > before[0] or (after[0] == before[0] and after[1] and not before[1])
    else:
        tighter = after[0] < before[0] or (after[0] == before[0] and after[1] and not before[1])
    return Effect.NARROWS if tighter else Effect.WIDENS


# --- tools ---------------------------------------------------------------------------------------


TOOL_FIELDS_COMPARED = frozenset(
    {"name", "title", "description", "inputSchema", "outputSchema", "annotations", "x-codegen"}
)


def _box(tool: Mapping[str, JSON]) -> str | None:
    meta = tool.get("x-codegen")
    box = meta.get("box") if isinstance(meta, dict) else None
    field = box.get("field") if isinstance(box, dict) else None
    return field if isinstance(field, str) else None


def _natural_box(tool: Mapping[str, JSON]) -> str | None:
    """The box a 2026-07-28 client sees: none when the tool has a natural variant (format 2),
    else the top-level box, which older modules served to every revision."""
    meta = tool.get("x-codegen")
    if isinstance(meta, dict) and isinstance(meta.get(NATURAL_KEY), dict):
        return None
    return _box(tool)


def _unboxed(schema: JSON, field: str | None) -> tuple[JSON, str]:
    """The schema of the tool's return value and its pointer under ``/outputSchema``."""
    if field is not None and isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict) and field in properties:
            return properties[field], f"/outputSchema/properties/{_escape(field)}"
    return schema, "/outputSchema"


def compare_tools(old: Mapping[str, JSON], new: Mapping[str, JSON], name: str) -> list[Change]:
    """Every classified change between two versions of one tool dict."""
    changes: list[Change] = []
    for key, kind in (("title", K.TITLE_CHANGED), ("description", K.DESCRIPTION_CHANGED)):
        before, after = old.get(key, ABSENT), new.get(key, ABSENT)
        if not _same_value(before, after):
            changes.append(make_change(kind, name, f"/{key}", old=before, new=after))
    changes += _compare_tool_annotations(old, new, name)
    extra = sorted((set(old) | set(new)) - TOOL_FIELDS_COMPARED)
    changes += _keyed_changes(K.TOOL_METADATA_CHANGED, name, "", old, new, extra)
    walk = _Walk(
        name,
        Direction.INPUT,
        _Doc(old.get("inputSchema", {}), "/inputSchema"),
        _Doc(new.get("inputSchema", {}), "/inputSchema"),
    )
    walk.compare(walk.old_doc.root, walk.new_doc.root, "/inputSchema", "/inputSchema", "")
    changes += walk.changes
    changes += _compare_outputs(old, new, name)
    return changes


def _compare_outputs(old: Mapping[str, JSON], new: Mapping[str, JSON], name: str) -> list[Change]:
    before, after = old.get("outputSchema"), new.get("outputSchema")
    if before is None and after is None:
        return []
    if before is None:
        return [make_change(K.OUTPUT_SCHEMA_ADDED, name, "/outputSchema", new=after)]
    if after is None:
        return [make_change(K.OUTPUT_SCHEMA_REMOVED, name, "/outputSchema", old=before)]
    changes: list[Change] = []
    old_box, new_box = _box(old), _box(new)
    # The top level is what clients before 2026-07-28 get. Newer clients get the natural
    # variant: the same value schema, so only its box can differ in its own way.
    old_natural, new_natural = _natural_box(old), _natural_box(new)
    if old_natural != new_natural and (old_natural, new_natural) != (old_box, new_box):
        changes.append(
            make_change(
                K.NATURAL_BOX_CHANGED,
                name,
                f"/x-codegen/{NATURAL_KEY}",
                old={"field": old_natural} if old_natural else None,
                new={"field": new_natural} if new_natural else None,
            )
        )
    walk = _Walk(
        name, Direction.OUTPUT, _Doc(before, "/outputSchema"), _Doc(after, "/outputSchema")
    )
    if old_box == new_box:
        walk.compare(before, after, "/outputSchema", "/outputSchema", "")
    else:
        changes.append(
            make_change(
                K.BOX_FIELD_CHANGED,
                name,
                "/x-codegen/box",
                old={"field": old_box} if old_box else None,
                new={"field": new_box} if new_box else None,
            )
        )
        old_value, optr = _unboxed(before, old_box)
        new_value, nptr = _unboxed(after, new_box)
        walk.compare(old_value, new_value, optr, nptr, "")
    return changes + walk.changes


def _compare_tool_annotations(
    old: Mapping[str, JSON], new: Mapping[str, JSON], name: str
) -> list[Change]:
    before = _dict(old.get("annotations"))
    after = _dict(new.get("annotations"))
    changes: list[Change] = []

    def effective(hints: Mapping[str, JSON], key: str) -> JSON:
        value = hints.get(key, HINT_DEFAULTS[key])
        if key == "destructiveHint" and hints.get("readOnlyHint", False) is True:
            return False  # destructiveHint is meaningful only when readOnlyHint is false
        return value

    def shown(hints: Mapping[str, JSON], key: str) -> str:
        if key in hints:
            return json.dumps(hints[key])
        if key == "destructiveHint" and hints.get("readOnlyHint", False) is True:
            return "unset (read-only)"
        return f"unset (= {json.dumps(HINT_DEFAULTS[key])})"

    flagged: set[str] = set()
    for key, kind, turned_on in (
        ("readOnlyHint", K.READ_ONLY_HINT_DISABLED, False),
        ("destructiveHint", K.DESTRUCTIVE_HINT_ENABLED, True),
    ):
        if effective(before, key) is not turned_on and effective(after, key) is turned_on:
            flagged.add(key)
            changes.append(
                make_change(
                    kind,
                    name,
                    f"/annotations/{key}",
                    old=before.get(key, ABSENT),
                    new=after.get(key, ABSENT),
                    old_text=shown(before, key),
                    new_text=shown(after, key),
                )
            )
    rest = [key for key in sorted(set(before) | set(after)) if key not in flagged]
    changes += _keyed_changes(K.ANNOTATION_CHANGED, name, "/annotations", before, after, rest)
    return changes


def _keyed_changes(
    kind: ChangeKind,
    name: str,
    prefix: str,
    before: Mapping[str, JSON],
    after: Mapping[str, JSON],
    keys: list[str],
) -> list[Change]:
    """A ``kind`` change at ``prefix/key`` for each of ``keys`` whose value differs."""
    changes = []
    for key in keys:
        was, now = before.get(key, ABSENT), after.get(key, ABSENT)
        if not _same_value(was, now):
            changes.append(
                make_change(kind, name, f"{prefix}/{_escape(key)}", old=was, new=now, keyword=key)
            )
    return changes


# --- sides ---------------------------------------------------------------------------------------


def _signature(tool: Mapping[str, JSON]) -> str:
    return json.dumps(
        [tool.get("inputSchema"), tool.get("outputSchema")], sort_keys=True, default=str
    )


def _function(tool: Mapping[str, JSON]) -> str | None:
    meta = tool.get("x-codegen")
    function = meta.get("function") if isinstance(meta, dict) else None
    return function if isinstance(function, str) else None


def _rename_score(old: Mapping[str, JSON], new: Mapping[str, JSON]) -> float:
    """How much ``new`` looks like ``old`` under another name: 0 (not at all) to 1."""
    function = _function(old)
    if function is not None and function == _function(new):
        return 1.0
    old_sig, new_sig = _signature(old), _signature(new)
    trivial = not _dict(_dict(old.get("inputSchema")).get("properties")) and (
        old.get("outputSchema") is None
    )
    if old_sig == new_sig and not trivial:
        return 0.99
    body = {k: v for k, v in old.items() if k not in ("name", "x-codegen")}
    other = {k: v for k, v in new.items() if k not in ("name", "x-codegen")}
    ratio = difflib.SequenceMatcher(
        None, json.dumps(body, sort_keys=True), json.dumps(other, sort_keys=True), autojunk=False
    ).ratio()
    return ratio if ratio >= 0.9 and not trivial else 0.0


def _located(change: Change, entry: ToolEntry) -> Change:
    return replace(change, path=entry.source_path, line=entry.line)


def diff_sides(base: Side, head: Side) -> list[Change]:
    """All changes from ``base`` to ``head``, sorted by tool, severity and pointer."""
    changes: list[Change] = []
    removed = [name for name in base.tools if name not in head.tools]
    added = [name for name in head.tools if name not in base.tools]
    renames: list[tuple[float, str, str]] = sorted(
        (
            (-score, old_name, new_name)
            for old_name in removed
            for new_name in added
            if (score := _rename_score(base.tools[old_name].tool, head.tools[new_name].tool))
        ),
    )
    renamed_from: dict[str, str] = {}
    for _, old_name, new_name in renames:
        if old_name in renamed_from.values() or new_name in renamed_from:
            continue
        renamed_from[new_name] = old_name
    for name in removed:
        if name not in renamed_from.values():
            entry = base.tools[name]
            changes.append(_located(make_change(K.TOOL_REMOVED, name, "", old=name), entry))
    for name in added:
        entry = head.tools[name]
        if name in renamed_from:
            old_name = renamed_from[name]
            change = make_change(
                K.TOOL_RENAMED, name, "/name", old=old_name, new=name, old_name=old_name
            )
            changes.append(_located(change, entry))
            pairs = compare_tools(base.tools[old_name].tool, entry.tool, name)
            changes += [_located(c, entry) for c in pairs]
        else:
            changes.append(_located(make_change(K.TOOL_ADDED, name, "", new=name), entry))
    for name, entry in head.tools.items():
        if name in base.tools:
            changes += [
                _located(c, entry) for c in compare_tools(base.tools[name].tool, entry.tool, name)
            ]
    return sorted(_dedupe(changes), key=Change.sort_key)


def _dedupe(changes: Iterable[Change]) -> list[Change]:
    """Drop repeats: a definition reached along several paths reports each change once."""
    seen: set[tuple[str, str, str, str, str]] = set()
    kept: list[Change] = []
    for change in changes:
        key = (
            change.kind.slug,
            change.tool,
            change.pointer,
            show(change.old, limit=10**9),
            show(change.new, limit=10**9),
        )
        if key not in seen:
            seen.add(key)
            kept.append(change)
    return kept
