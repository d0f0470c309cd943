"""Two sides of a diff: tools removed, added, renamed (matched by function or likeness) and kept."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace

from mcp_codegen._diff.changes import JSON, Change, ChangeKind, make_change, show
from mcp_codegen._diff.classify.keywords import dict_of
from mcp_codegen._diff.classify.tools import compare_tools
from mcp_codegen._diff.revisions import Side, ToolEntry, shared_key
from mcp_codegen._shared.format import PRIVATE_KEY
from mcp_codegen._shared.protocols import KNOWN_REVISIONS, missing_variant, variant_for

K = ChangeKind
#: Kinds decided by module data (``PROTOCOLS``), not by the tool dicts.
MODULE_KINDS = frozenset({K.OUTPUT_REVISIONS_DROPPED, K.OUTPUT_REVISIONS_ADDED})


def _signature(tool: Mapping[str, JSON]) -> str:
    return json.dumps(
        [tool.get("inputSchema"), tool.get("outputSchema")], sort_keys=True, default=str
    )


def _function(tool: Mapping[str, JSON]) -> str | None:
    meta = tool.get(PRIVATE_KEY)
    function = meta.get("function") if isinstance(meta, dict) else None
    return function if isinstance(function, str) else None


def _rename_score(old: Mapping[str, JSON], new: Mapping[str, JSON]) -> float:
    """How much ``new`` looks like ``old`` under another name: 0 (not at all) to 1."""
    function = _function(old)
    if function is not None and function == _function(new):
        return 1.0
    old_sig, new_sig = _signature(old), _signature(new)
    trivial = not dict_of(dict_of(old.get("inputSchema")).get("properties")) and (
        old.get("outputSchema") is None
    )
    if old_sig == new_sig and not trivial:
        return 0.99
    body = {k: v for k, v in old.items() if k not in ("name", PRIVATE_KEY)}
    other = {k: v for k, v in new.items() if k not in ("name", PRIVATE_KEY)}
    ratio = difflib.SequenceMatcher(
        None, json.dumps(body, sort_keys=True), json.dumps(other, sort_keys=True), autojunk=False
    ).ratio()
    return ratio if ratio >= 0.9 and not trivial else 0.0


def diff_sides(base: Side, head: Side) -> list[Change]:
    """All changes from ``base`` to ``head``, sorted by tool, severity and pointer."""
    base, head = _paired(base, head), _paired(head, base)
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
            changes.append(entry.locate(make_change(K.TOOL_REMOVED, name, "", old=name)))
    for name in added:
        entry = head.tools[name]
        if name in renamed_from:
            old_name = renamed_from[name]
            change = make_change(
                K.TOOL_RENAMED, name, "/name", old=old_name, new=name, old_name=old_name
            )
            changes.append(entry.locate(change))
            pairs = compare_tools(base.tools[old_name].tool, entry.tool, name)
            pairs += _revision_changes(base.tools[old_name], entry)
            changes += [entry.locate(c) for c in pairs]
        else:
            changes.append(entry.locate(make_change(K.TOOL_ADDED, name, "", new=name)))
    for name, entry in head.tools.items():
        if name in base.tools:
            pairs = compare_tools(base.tools[name].tool, entry.tool, name)
            pairs += _revision_changes(base.tools[name], entry)
            changes += [entry.locate(c) for c in pairs]
    return sorted(_dedupe(changes), key=Change.sort_key)


def _paired(side: Side, other: Side) -> Side:
    """``side`` with a tool keyed by its name alone re-keyed ``"name [function]"`` when the
    other side keys that name so (two servers share it there, one here): each tool is then
    compared with itself, by its function."""
    rekeyed: dict[str, ToolEntry] = {}
    for key, entry in side.tools.items():
        if key == entry.name and key not in other.tools:
            shared = shared_key(entry)
            key = shared if shared in other.tools else key
        rekeyed[key] = entry
    return replace(side, tools=rekeyed)


def _boxed_revisions(protocols: tuple[str, ...]) -> tuple[str, ...]:
    """The known revisions before 2026-07-28 that a module built for ``protocols`` serves: all
    of them, unless it holds natural output schemas only (``missing_variant``)."""
    return tuple(
        revision
        for revision in KNOWN_REVISIONS
        if variant_for(revision) == "boxed" and missing_variant(protocols, revision) is None
    )


def _revision_changes(old: ToolEntry, new: ToolEntry) -> list[Change]:
    """The output schema per protocol revision: a module built for 2026-07-28 alone is not
    served to older clients at all (its output schemas may have any root)."""
    before, after = _boxed_revisions(old.protocols), _boxed_revisions(new.protocols)
    if before == after:
        return []
    lost = [r for r in before if r not in after]
    gained = [r for r in after if r not in before]
    kind, revisions = (
        (K.OUTPUT_REVISIONS_DROPPED, lost) if lost else (K.OUTPUT_REVISIONS_ADDED, gained)
    )
    return [
        make_change(
            kind,
            new.name,
            "/outputSchema",
            old=list(old.protocols),
            new=list(new.protocols),
            revisions=", ".join(revisions),
            protocols=", ".join(new.protocols),
        )
    ]


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
