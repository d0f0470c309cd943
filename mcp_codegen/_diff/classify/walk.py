"""The recursive walk over two schema documents: one keyword family at a time.

``compare`` follows ``$ref`` into ``$defs`` with a memo of visited location pairs, so recursive
types terminate, and hands each keyword family to its module.
"""

from __future__ import annotations

from dataclasses import replace

from mcp_codegen._diff.changes import ABSENT, JSON, ChangeKind
from mcp_codegen._diff.classify.bounds import (
    compare_counts,
    compare_multiple_of,
    compare_numeric_bounds,
    compare_string_assertion,
    compare_unique,
)
from mcp_codegen._diff.classify.context import WalkContext
from mcp_codegen._diff.classify.keywords import (
    HANDLED,
    SCHEMA_ANNOTATIONS,
    STRUCTURAL,
    Schema,
    schema_key,
)
from mcp_codegen._diff.classify.objects import (
    compare_items,
    compare_open_schema,
    compare_properties,
    compare_property_names,
)
from mcp_codegen._diff.classify.refs import Node, resolve
from mcp_codegen._diff.classify.unions import compare_all_of, compare_union, rest
from mcp_codegen._diff.classify.values import compare_types, compare_values
from mcp_codegen._shared.json_values import same_value

K = ChangeKind


class Walk(WalkContext):
    """Compares two schema documents of one tool in one direction."""

    def compare(self, old_raw: JSON, new_raw: JSON, optr: str, nptr: str, label: str) -> None:
        """Compare the schemas found at ``optr`` (BASE) and ``nptr`` (HEAD)."""
        if self.unchanged(old_raw, new_raw):
            return
        old = resolve(old_raw, optr, self.old_doc)
        new = resolve(new_raw, nptr, self.new_doc)
        for node in (old, new):
            if node.unresolved is not None:
                self.emit(K.REF_UNRESOLVED, f"{node.pointer}/$ref", label, ref=node.unresolved)
                return
        self._compare_annotations(old, new, label)
        if old.refs and new.refs and old.refs[-1] != new.refs[-1]:
            self.emit(K.REF_RETARGETED, f"{nptr}/$ref", label, old=old.refs[-1], new=new.refs[-1])
        key = (old.pointer, new.pointer, schema_key(old.schema), schema_key(new.schema))
        if key in self.seen:
            return  # a recursive type: this pair is being (or has been) compared
        self.seen.add(key)
        if any(k in s for s in (old.schema, new.schema) for k in ("anyOf", "oneOf")):
            compare_union(self, old, new, label)
            old = replace(old, schema=rest(old.schema))
            new = replace(new, schema=rest(new.schema))
        else:
            compare_types(self, old, new, label)
        compare_values(self, old.schema, new.schema, new.pointer, label)
        compare_all_of(self, old, new, label)
        compare_properties(self, old, new, label)
        compare_open_schema(self, old, new, "additionalProperties", f"{label}.*" if label else "*")
        compare_property_names(self, old, new, label)
        compare_items(self, old, new, label)
        compare_counts(self, old.schema, new.schema, new.pointer, label)
        compare_numeric_bounds(self, old, new, label)
        compare_multiple_of(self, old.schema, new.schema, new.pointer, label)
        compare_unique(self, old.schema, new.schema, new.pointer, label)
        compare_string_assertion(self, old, new, label, "pattern", K.PATTERN_CHANGED)
        compare_string_assertion(self, old, new, label, "format", K.FORMAT_CHANGED)
        self._compare_unhandled(old.schema, new.schema, new.pointer, label)

    def _compare_annotations(self, old: Node, new: Node, label: str) -> None:
        for keyword in sorted(SCHEMA_ANNOTATIONS):
            before = old.schema.get(keyword, ABSENT)
            after = new.schema.get(keyword, ABSENT)
            if same_value(before, after):
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

    def _compare_unhandled(self, o: Schema, n: Schema, pointer: str, label: str) -> None:
        for keyword in sorted(set(o) | set(n)):
            if keyword in HANDLED or keyword in SCHEMA_ANNOTATIONS or keyword in STRUCTURAL:
                continue
            if keyword.startswith("x-"):
                continue  # vendor extensions never affect validation
            self.undecided(o, n, pointer, label, keyword)
