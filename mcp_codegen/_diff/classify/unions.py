"""The combinators ``anyOf``, ``oneOf`` and ``allOf``: pairing branches and judging lost ones."""

from __future__ import annotations

from typing import Any

from mcp_codegen._diff.changes import ABSENT, JSON, ChangeKind, Severity
from mcp_codegen._diff.classify.context import WalkContext
from mcp_codegen._diff.classify.keywords import (
    SCHEMA_ANNOTATIONS,
    STRUCTURAL,
    Direction,
    Schema,
    ref_of,
    short,
)
from mcp_codegen._diff.classify.refs import Doc, Node
from mcp_codegen._diff.classify.typesets import lost, type_set
from mcp_codegen._diff.classify.values import compare_types

K = ChangeKind
Branch = tuple[JSON, str]


def rest(schema: Schema) -> Schema:
    """What of a union node is compared beside its branches: the keywords next to anyOf/oneOf.

    A plain schema facing a union became that union's single branch, so nothing is left of it.
    """
    if "anyOf" in schema or "oneOf" in schema:
        return {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "type")}
    return {}


def _branches(node: Node) -> tuple[list[tuple[JSON, str]], str | None]:
    """A union's branches with their pointers; a plain schema is a union of itself."""
    for keyword in ("anyOf", "oneOf"):
        branches = node.schema.get(keyword)
        if isinstance(branches, list):
            return [(b, f"{node.pointer}/{keyword}/{i}") for i, b in enumerate(branches)], keyword
    single = {
        k: v
        for k, v in node.schema.items()
        if k not in SCHEMA_ANNOTATIONS and k not in STRUCTURAL - {"$ref"}
    }
    return [(single, node.pointer)], None


def compare_union(walk: WalkContext, old: Node, new: Node, label: str) -> None:
    """anyOf/oneOf: compare the union's type set, then pair up branches and compare those.

    A branch removed from an input union, or added to an output union, narrows or widens
    the wrong way only if no remaining branch covers it, which the schemas cannot tell:
    unless its JSON types vanished (a type change), that is reported as UNKNOWN.
    """
    start = len(walk.changes)
    old_types = type_set(old.schema, walk.old_doc)
    new_types = type_set(new.schema, walk.new_doc)
    compare_types(walk, old, new, label)
    old_branches, old_kw = _branches(old)
    new_branches, new_kw = _branches(new)
    keyword = new_kw or old_kw or "anyOf"
    # oneOf is exclusive: adding or removing a branch may flip overlapping instances, unless
    # the branches are told apart by their JSON types.
    exact = "oneOf" not in (old_kw, new_kw) or (
        _disjoint(old_branches, walk.old_doc) and _disjoint(new_branches, walk.new_doc)
    )
    pairs, gone, gained = _pair_branches(walk, old_branches, new_branches)
    for (ob, optr), (nb, nptr) in pairs:
        walk.compare(ob, nb, optr, nptr, label)
    inputs = walk.direction is Direction.INPUT
    undecided: list[str] = []
    if not exact and any(c.severity is not Severity.NOTABLE for c in walk.changes[start:]):
        # Even widening one overlapping branch can make an instance match two of them.
        undecided.append("branches of an overlapping oneOf changed")
    for branch, _ in gone:
        if lost(type_set(branch, walk.old_doc), new_types):
            continue  # its types are gone: reported as a type change already
        if not inputs and exact:
            text = f"output union branch {short(branch)} removed"
            walk.emit(
                K.OUTPUT_TYPE_NARROWED,
                f"{new.pointer}/{keyword}",
                label,
                old=branch,
                message=text,
            )
        else:
            undecided.append(f"branch {short(branch)} removed")
    for branch, ptr in gained:
        if lost(type_set(branch, walk.new_doc), old_types):
            continue
        if inputs and exact:
            text = f"input union branch {short(branch)} added"
            walk.emit(K.INPUT_TYPE_WIDENED, ptr, label, new=branch, message=text)
        else:
            undecided.append(f"branch {short(branch)} added")
    if undecided:
        detail = "; ".join(undecided)
        walk.emit(K.UNION_CHANGED, f"{new.pointer}/{keyword}", label, detail=detail)


def _disjoint(branches: list[tuple[JSON, str]], doc: Doc) -> bool:
    seen: set[str] = set()
    for branch, _ in branches:
        types = type_set(branch, doc)
        if types is None:
            return False
        numeric = {"integer", "number"} if types & {"integer", "number"} else set()
        covered = set(types) | numeric
        if covered & seen:
            return False
        seen |= covered
    return True


def _pair_branches(
    walk: WalkContext, old: list[tuple[JSON, str]], new: list[tuple[JSON, str]]
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
    take(lambda a, b: _equivalent(walk, a, b), False)
    take(lambda a, b: ref_of(a[0]) is not None and ref_of(a[0]) == ref_of(b[0]), False)
    # Any pairing is sound for anyOf (each pair is compared); a unique match is likelier right.
    take(
        lambda a, b: type_set(a[0], walk.old_doc) == type_set(b[0], walk.new_doc),
        True,
    )
    take(
        lambda a, b: type_set(a[0], walk.old_doc) == type_set(b[0], walk.new_doc),
        False,
    )
    if len(old_left) == 1 and len(new_left) == 1:
        pairs.append((old_left.pop(), new_left.pop()))
    return pairs, old_left, new_left


def _equivalent(walk: WalkContext, old: Branch, new: Branch) -> bool:
    """Whether comparing the two branches on their own finds no change at all."""
    if walk.unchanged(old[0], new[0]):
        return True
    trial = walk.fork()
    trial.compare(old[0], new[0], old[1], new[1], "")
    return not trial.changes


def compare_all_of(walk: WalkContext, old: Node, new: Node, label: str) -> None:
    """``allOf`` of the same length, conjunct by conjunct; any other change is UNKNOWN."""
    before, after = old.schema.get("allOf", ABSENT), new.schema.get("allOf", ABSENT)
    if walk.unchanged(before, after):
        return
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        # Comparing conjuncts pairwise is sound for widening; a narrowed conjunct may be
        # redundant with another one, so the report errs towards breaking.
        for index, (ob, nb) in enumerate(zip(before, after, strict=True)):
            optr, nptr = f"{old.pointer}/allOf/{index}", f"{new.pointer}/allOf/{index}"
            walk.compare(ob, nb, optr, nptr, label)
        return
    walk.undecided(old.schema, new.schema, new.pointer, label, "allOf")
