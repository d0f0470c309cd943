"""``$ref`` handling: schema documents, local references, and the node a reference chain reaches."""

from __future__ import annotations

from dataclasses import dataclass

from mcp_codegen._diff.changes import JSON
from mcp_codegen._diff.classify.keywords import Schema, as_schema, assertions
from mcp_codegen._shared.annotations import SCHEMA_ANNOTATIONS
from mcp_codegen._shared.json_pointer import escape, fragment_tokens


@dataclass
class Doc:
    """A schema document (inputSchema or outputSchema) and its pointer inside the tool dict."""

    root: JSON
    base: str  # "/inputSchema" or "/outputSchema"

    def resolve(self, ref: str) -> tuple[JSON, str] | None:
        """The target of a local ``$ref`` and its pointer, or None when it cannot be resolved."""
        found = fragment_tokens(ref)
        if found is None:
            return None  # another document, or an $anchor (the generator writes neither)
        node = self.root
        for token in found:
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node, self.base + "".join(f"/{escape(token)}" for token in found)


@dataclass
class Node:
    """A schema with its ``$ref`` chain followed. Pointers are JSON pointers into the tool dict."""

    schema: Schema  # the target's keywords, overlaid with the referring site's assertions
    pointer: str  # where the assertions live (the target, for a reference)
    ann_pointers: dict[str, str]  # annotation keyword -> where its effective value lives
    refs: tuple[str, ...]  # the $ref strings followed, outermost first
    unresolved: str | None = None


def resolve(raw: JSON, pointer: str, doc: Doc) -> Node:
    """Follow ``$ref`` (and a single-branch ``allOf``) to the schema that applies.

    Assertions written beside a ``$ref`` are laid over the target's; annotations beside it
    win over the target's (they describe this use of the definition).
    """
    schema = as_schema(raw)
    ann_pointers = {key: pointer for key in schema if key in SCHEMA_ANNOTATIONS}
    annotations: Schema = {key: schema[key] for key in schema if key in SCHEMA_ANNOTATIONS}
    refs: list[str] = []
    overlay: Schema = {}
    for _ in range(64):  # longer chains of pure references are cycles
        ref = schema.get("$ref")
        branches = schema.get("allOf")
        if isinstance(ref, str):
            target = doc.resolve(ref)
            if target is None:
                return Node(schema, pointer, ann_pointers, tuple(refs), unresolved=ref)
            refs.append(ref)
            overlay.update({k: v for k, v in assertions(schema).items() if k != "$ref"})
            schema, pointer = as_schema(target[0]), target[1]
        elif isinstance(branches, list) and len(branches) == 1:
            overlay.update({k: v for k, v in assertions(schema).items() if k != "allOf"})
            schema, pointer = as_schema(branches[0]), f"{pointer}/allOf/0"
        else:
            break
        for key in schema:
            if key in SCHEMA_ANNOTATIONS and key not in annotations:
                annotations[key] = schema[key]
                ann_pointers[key] = pointer
    merged = assertions(schema)
    merged.update(overlay)
    merged.update(annotations)
    return Node(merged, pointer, ann_pointers, tuple(refs))
