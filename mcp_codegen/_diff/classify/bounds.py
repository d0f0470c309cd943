"""Numeric, count and string bounds: ``minimum``/``maximum`` (exclusive too), ``multipleOf``,
``min*``/``max*`` counts, ``uniqueItems``, ``pattern`` and ``format``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from mcp_codegen._diff.changes import ABSENT, JSON, ChangeKind
from mcp_codegen._diff.classify.context import WalkContext
from mcp_codegen._diff.classify.keywords import (
    LOWER_COUNTS,
    UPPER_COUNTS,
    Effect,
    Schema,
    fraction,
    is_number,
)
from mcp_codegen._diff.classify.refs import Node
from mcp_codegen._diff.classify.typesets import type_set

Bound = tuple[Fraction, bool] | None  # (value, exclusive); None: unbounded


def _count_bound(value: JSON) -> Bound:
    return (fraction(value), False) if is_number(value) else None


def effective_bound(keywords: Mapping[str, JSON], lower: bool, integral: bool) -> Bound:
    """The tightest bound among ``minimum``/``exclusiveMinimum`` (or the maxima)."""
    bounds: list[tuple[Fraction, bool]] = []
    for keyword, value in keywords.items():
        exclusive = keyword.startswith("exclusive")
        number = fraction(value)
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


def bound_effect(before: Bound, after: Bound, lower: bool) -> Effect | None:
    """How moving a lower (or upper) bound from ``before`` to ``after`` acts; None if it does not."""
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


def compare_counts(walk: WalkContext, o: Schema, n: Schema, pointer: str, label: str) -> None:
    """``minLength``, ``maxItems`` and the other counts."""
    for keyword in (*LOWER_COUNTS, *UPPER_COUNTS):
        before, after = o.get(keyword, ABSENT), n.get(keyword, ABSENT)
        if before == after:
            continue
        lower = keyword in LOWER_COUNTS
        effect = bound_effect(_count_bound(before), _count_bound(after), lower)
        if effect is not None:
            walk.emit_effect(effect, f"{pointer}/{keyword}", label, keyword, before, after)


def compare_numeric_bounds(walk: WalkContext, old: Node, new: Node, label: str) -> None:
    """``minimum``/``exclusiveMinimum`` and the maxima, as the tightest bound each pair makes."""
    integral = all(
        (types := type_set(node.schema, doc)) is not None and types <= {"integer"}
        for node, doc in ((old, walk.old_doc), (new, walk.new_doc))
    )
    for lower, keywords in (
        (True, ("minimum", "exclusiveMinimum")),
        (False, ("maximum", "exclusiveMaximum")),
    ):
        before = {k: old.schema[k] for k in keywords if is_number(old.schema.get(k))}
        after = {k: new.schema[k] for k in keywords if is_number(new.schema.get(k))}
        if before == after:
            continue
        effect = bound_effect(
            effective_bound(before, lower, integral),
            effective_bound(after, lower, integral),
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
        walk.emit_effect(effect, pointer, label, "/".join(used), old_value, new_value)


def compare_multiple_of(walk: WalkContext, o: Schema, n: Schema, pointer: str, label: str) -> None:
    """``multipleOf``: a step that divides the old one widens, a multiple of it narrows."""
    before, after = o.get("multipleOf", ABSENT), n.get("multipleOf", ABSENT)
    if before == after:
        return
    if not is_number(before):
        effect = Effect.NARROWS
    elif not is_number(after):
        effect = Effect.WIDENS
    else:
        old_step, new_step = fraction(before), fraction(after)
        if (old_step / new_step).denominator == 1:
            effect = Effect.WIDENS  # every multiple of the old step is one of the new step
        elif (new_step / old_step).denominator == 1:
            effect = Effect.NARROWS
        else:
            effect = Effect.BOTH
    walk.emit_effect(effect, f"{pointer}/multipleOf", label, "multipleOf", before, after)


def compare_unique(walk: WalkContext, o: Schema, n: Schema, pointer: str, label: str) -> None:
    """``uniqueItems`` turned on narrows, turned off widens."""
    before, after = o.get("uniqueItems") is True, n.get("uniqueItems") is True
    if before != after:
        walk.emit_effect(
            Effect.NARROWS if after else Effect.WIDENS,
            f"{pointer}/uniqueItems",
            label,
            "uniqueItems",
            o.get("uniqueItems", ABSENT),
            n.get("uniqueItems", ABSENT),
        )


def compare_string_assertion(
    walk: WalkContext, old: Node, new: Node, label: str, keyword: str, kind: ChangeKind
) -> None:
    """``pattern``/``format``: adding one narrows, removing widens, replacing is UNKNOWN."""
    before, after = old.schema.get(keyword, ABSENT), new.schema.get(keyword, ABSENT)
    if before == after:
        return
    pointer = f"{new.pointer}/{keyword}"
    if before is ABSENT or after is ABSENT:
        effect = Effect.NARROWS if before is ABSENT else Effect.WIDENS
        walk.emit_effect(effect, pointer, label, keyword, before, after)
    else:
        walk.emit(kind, pointer, label, old=before, new=after)
