"""Schema post-processing as small named pure transforms (each returns a new schema).

Every transform walks only *schema positions*: the values of keywords whose values are schemas.
Values of ``default``, ``enum``, ``const``, ``examples`` and ``x-*`` extensions are data and are
never touched, and a property that happens to be named ``title`` is a property, not a keyword.
"""

from __future__ import annotations

from mcp_codegen._shared.json_pointer import definition_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds; the runtime imports this module to serve profiles
    from collections.abc import Callable, Iterator
    from typing import Any

    Schema = dict[str, Any]
    #: The names an expansion reaches with the id of each one's body, and those bodies.
    _Context = tuple[tuple[tuple[str, int], ...], tuple[Schema, ...]]

SCHEMA_VALUED = frozenset(
    {
        "items",
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "additionalItems",
    }
)
SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

#: Keyword order in generated modules: identity and type first, then structure, then constraints.
KEY_ORDER = (
    "$ref",
    "type",
    "title",
    "description",
    "format",
    "enum",
    "const",
    "properties",
    "patternProperties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
)
_RANK = {key: index for index, key in enumerate(KEY_ORDER)}


_KIND = {
    **dict.fromkeys(SCHEMA_VALUED, "one"),
    **dict.fromkeys(SCHEMA_LISTS, "list"),
    **dict.fromkeys(SCHEMA_MAPS, "map"),
}
_KEYWORDS = frozenset(_KIND)


def map_subschemas(schema: Any, fn: Callable[[Schema], Schema]) -> Any:
    """Apply ``fn`` to every direct subschema of ``schema`` (not recursively)."""
    if not isinstance(schema, dict):
        return schema
    if _KEYWORDS.isdisjoint(schema):
        return dict(schema)  # a leaf (most nodes): no keyword to dispatch on
    result = {}
    for key, value in schema.items():
        kind = _KIND.get(key)
        if kind is None:
            pass
        elif kind == "one":
            if isinstance(value, dict):
                value = fn(value)
        elif kind == "list":
            if isinstance(value, list):
                value = [fn(v) if isinstance(v, dict) else v for v in value]
        elif isinstance(value, dict):
            value = {k: fn(v) if isinstance(v, dict) else v for k, v in value.items()}
        result[key] = value
    return result


def prune_titles(schema: Schema) -> Schema:
    """Remove ``title`` keywords; keep properties named ``title`` and titles inside data values."""

    def walk(node: Schema) -> Schema:
        node = map_subschemas(node, walk)
        if isinstance(node.get("title"), str):
            node = {k: v for k, v in node.items() if k != "title"}
        return node

    return walk(schema)


def drop_schema_keyword(schema: Schema) -> Schema:
    """No ``$schema`` anywhere: MCP (since 2025-11-25) reads a schema without it as 2020-12."""

    def walk(node: Schema) -> Schema:
        node = map_subschemas(node, walk)
        return {k: v for k, v in node.items() if k != "$schema"}

    return walk(schema)


def referenced_definitions(node: Any, found: set[str]) -> set[str]:
    """Add to ``found`` the names of the local definitions (``#/$defs/...``) that ``node``
    refers to anywhere in its schema positions; returns ``found``."""
    for ref in _local_refs(node):
        if (name := definition_name(ref)) is not None:
            found.add(name)
    return found


def _local_refs(node: Any) -> Iterator[str]:
    """Every string ``$ref`` in the schema positions of ``node``, in document order (a node's
    own before its subschemas'), read in place: nothing is copied."""
    stack = [node]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if isinstance(ref := node.get("$ref"), str):
            yield ref
        children: list[Any] = []
        for key, value in node.items():
            kind = _KIND.get(key)
            if kind is None:
                continue
            if kind == "one":
                children.append(value)
            elif kind == "list":
                if isinstance(value, list):
                    children.extend(value)
            elif isinstance(value, dict):
                children.extend(value.values())
        stack.extend(reversed(children))


def recursive_definitions(defs: dict[str, Schema]) -> set[str]:
    """Names of definitions that can reach themselves through ``$ref``s."""
    return _self_reaching(
        {name: referenced_definitions(body, set()) & defs.keys() for name, body in defs.items()}
    )


def _self_reaching(edges: dict[str, set[str]]) -> set[str]:
    """Names that reach themselves in ``edges`` (name -> the defined names its body refers to)."""
    recursive = set()
    for start in edges:
        stack, seen = list(edges[start]), set()
        while stack:
            current = stack.pop()
            if current == start:
                recursive.add(start)
                break
            if current not in seen:
                seen.add(current)
                stack.extend(edges.get(current, ()))
    return recursive


class Memo:
    """Results for schema objects shared between the tools of one module.

    A module's tools share their raw definitions (``$defs`` bodies) and, per return annotation,
    their raw output schemas: each is then cleaned once. Entries hold the object they describe,
    so an id is never mistaken for a later object's. A result that depends on more than its
    object (a definition's expansion depends on the bodies the names it reaches map to) is
    stored under a ``context`` of ids too, with the objects behind those ids held in ``held``
    (so none of them is freed and its id reused while the memo lives). Stored results are
    shared: nobody may mutate them.
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[object, ...], tuple[object, Schema, tuple[object, ...]]] = {}

    def get(self, kind: str, key: object, context: tuple[object, ...] = ()) -> Schema | None:
        entry = self._entries.get((kind, id(key), context))
        return entry[1] if entry is not None and entry[0] is key else None

    def put(
        self,
        kind: str,
        key: object,
        value: Schema,
        context: tuple[object, ...] = (),
        held: tuple[object, ...] = (),
    ) -> Schema:
        self._entries[(kind, id(key), context)] = (key, value, held)
        return value


def inline_refs(schema: Schema, memo: Memo | None = None) -> Schema:
    """Inline non-recursive ``$ref``s and drop their ``$defs``.

    Recursive definitions stay under a root ``$defs`` (every other ``$ref`` is gone); a root that
    is itself a ``$ref`` is unwrapped so the root keeps ``type: object``. Nothing is mutated: the
    result shares unchanged data values with the input. A definition body seen before through
    ``memo``, with every name it reaches bound to the same body as then (so with the same
    recursive set), is not expanded again.
    """
    defs: dict[str, Schema] = {}
    for key in ("definitions", "$defs"):
        defs.update(schema.get(key) or {})
    root = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    if not defs:
        # Nothing to inline (most tools): the result is the root itself, once no local
        # ``$ref`` is left dangling in it. Nothing is mutated downstream, so no copy is needed.
        for ref in _local_refs(root):
            if definition_name(ref) is not None:
                raise ValueError(f"dangling $ref {ref!r}: no such definition")
        return root
    inliner = _Inliner(defs, memo)
    root_ref = root.get("$ref")
    if isinstance(root_ref, str) and (name := definition_name(root_ref)) in defs:
        root = {**defs[name], **{k: v for k, v in root.items() if k != "$ref"}}
    root = inliner.expand(root)
    if inliner.missing:
        raise ValueError(f"dangling $ref {inliner.missing[0]!r}: no such definition")
    expanded = {name: inliner.expand(defs[name]) for name in inliner.keep}
    # Keep only the recursive definitions this schema reaches (a shared pool may hold more).
    reachable: set[str] = set()
    pending = referenced_definitions(root, set()) & expanded.keys()
    while pending:
        name = pending.pop()
        if name not in reachable:
            reachable.add(name)
            pending |= referenced_definitions(expanded[name], set()) & expanded.keys()
    if reachable:
        # A new dict: ``root`` may be a memoised expansion (a root ``$ref`` to an alias).
        root = {**root, "$defs": {name: expanded[name] for name in sorted(reachable)}}
    return root


class _Inliner:
    """One ``inline_refs`` call: its definitions, which of them are recursive (``keep``), and
    the ``$ref``s found without a definition (``missing``)."""

    def __init__(self, defs: dict[str, Schema], memo: Memo | None) -> None:
        self.defs, self.memo = defs, memo
        self.refs = {name: referenced_definitions(body, set()) for name, body in defs.items()}
        self.keep = _self_reaching({name: found & defs.keys() for name, found in self.refs.items()})
        self.missing: list[str] = []
        self.contexts: dict[str, _Context | None] = {}

    def context(self, name: str) -> _Context | None:
        """What the expansion of ``name`` depends on besides its body: every name it reaches
        with the body that name has here (which also fixes which of them are recursive).
        ``None`` when one of them is not defined here: such an expansion is not memoised (it
        may record a dangling ``$ref``, which a memoised result would not record again)."""
        if name not in self.contexts:
            reached, pending = set(), [name]
            while pending:
                current = pending.pop()
                if current not in reached:
                    reached.add(current)
                    pending.extend(self.refs.get(current, ()))
            if reached <= self.defs.keys():
                names = sorted(reached)
                self.contexts[name] = (
                    tuple((n, id(self.defs[n])) for n in names),
                    tuple(self.defs[n] for n in names),
                )
            else:
                self.contexts[name] = None
        return self.contexts[name]

    def expand_definition(self, name: str) -> Schema:
        body = self.defs[name]
        if self.memo is None or (found := self.context(name)) is None:
            return self.expand(body)
        ids, bodies = found
        if (expanded := self.memo.get("inline", body, ids)) is None:
            expanded = self.memo.put("inline", body, self.expand(body), ids, bodies)
        return expanded

    def expand(self, node: Schema) -> Schema:
        ref = node.get("$ref")
        if isinstance(ref, str) and (name := definition_name(ref)) is not None:
            if name not in self.defs:
                self.missing.append(ref)
            elif name not in self.keep:
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                if not siblings:
                    return self.expand_definition(name)
                return map_subschemas({**self.expand_definition(name), **siblings}, self.expand)
            else:
                return {"$ref": f"#/$defs/{name}", **{k: v for k, v in node.items() if k != "$ref"}}
        return map_subschemas(node, self.expand)


def order_keys(schema: Schema) -> Schema:
    """A stable, readable keyword order; ``properties`` keep declaration order."""

    def walk(node: Schema) -> Schema:
        node = map_subschemas(node, walk)
        return dict(sorted(node.items(), key=_rank))

    return walk(schema)


def box_output(schema: Schema, field: str, marker: bool) -> tuple[Schema, bool]:
    """Wrap a non-object root as ``{field: ...}``; returns the schema and whether it was boxed."""
    if schema.get("type") == "object":
        return schema, False
    inner = {k: v for k, v in schema.items() if k != "$defs"}
    boxed: Schema = {
        "type": "object",
        "properties": {field: inner},
        "required": [field],
    }
    if "$defs" in schema:
        boxed["$defs"] = schema["$defs"]
    if marker:
        boxed["x-dedalus-box"] = {"field": field}
    return boxed, True


def _tidy(schema: Schema, memo: Memo | None = None) -> Schema:
    """``order_keys(prune_titles(drop_schema_keyword(s)))`` in one walk instead of three."""

    def walk(node: Schema) -> Schema:
        if memo is not None and (done := memo.get("tidy", node)) is not None:
            return done
        tidied = map_subschemas(node, walk)
        kept = [
            item
            for item in tidied.items()
            if item[0] != "$schema" and not (item[0] == "title" and isinstance(item[1], str))
        ]
        result = dict(sorted(kept, key=_rank))
        return memo.put("tidy", node, result) if memo is not None else result

    return walk(schema)


def _rank(item: tuple[str, Any]) -> tuple[int, str]:
    return _RANK.get(item[0], len(_RANK)), item[0]


def clean(schema: Schema, memo: Memo | None = None) -> Schema:
    """The standard pipeline for inferred schemas: inline refs, then prune, drop and order.

    Ordering comes last because inlining merges a ``$ref``'s siblings after the definition's keys.
    With ``memo``, a schema object cleaned before is not cleaned again.
    """
    if memo is None:
        return _tidy(inline_refs(schema))
    if (cleaned := memo.get("clean", schema)) is None:
        cleaned = memo.put("clean", schema, _tidy(inline_refs(schema, memo), memo))
    return cleaned
