"""Client-aware changes: what a change does to the clients configured as ``profiles``, to the
tool-name budget and to the size limits (the same checks as ``mcp-codegen lint``).

A tool kept from BASE to HEAD that newly fails under a profile (the profile cannot express it),
or newly loses something there (a constraint the model no longer sees), is reported under its own
rule; so is a name that starts to exceed the budget, and a size that crosses a configured limit.
Findings are compared by profile, transform, kind and pointer, never by message text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mcp_codegen._diff.changes import Change, ChangeKind, make_change
from mcp_codegen._diff.revisions import Side, ToolEntry
from mcp_codegen._profiles import Finding, apply_profile
from mcp_codegen._profiles.budget import payload_bytes, wire_bytes
from mcp_codegen._profiles.name_limits import DEFAULT_NAME_BUDGET, check_names
from mcp_codegen._shared.format import PRIVATE_KEY

K = ChangeKind
#: The kinds only ``client_changes`` reports (the schema classifier never does).
CLIENT_KINDS = frozenset(
    {K.CLIENT_PROFILE_FAILS, K.CLIENT_PROFILE_LOSES, K.NAME_OVER_BUDGET, K.SIZE_LIMIT_EXCEEDED}
)


@dataclass(frozen=True)
class ClientSettings:
    """The client settings of ``[tool.mcp-codegen]`` that ``diff`` checks."""

    profiles: tuple[str, ...] = ()
    server_name: str = ""
    name_budget: int = DEFAULT_NAME_BUDGET
    max_tool_bytes: int | None = None
    max_total_bytes: int | None = None


def _wire(entry: ToolEntry) -> dict[str, object]:
    return {key: value for key, value in entry.tool.items() if key != PRIVATE_KEY}


def _keyed(findings: Iterable[Finding]) -> dict[tuple[str, str, str], Finding]:
    return {(f.transform, f.kind, f.pointer): f for f in findings if f.kind != "changed"}


def client_changes(base: Side, head: Side, settings: ClientSettings) -> list[Change]:
    """Every client-aware change from ``base`` to ``head`` (tools on both sides, and totals)."""
    kept = [name for name in head.tools if name in base.tools]
    changes: list[Change] = []
    for profile in settings.profiles:
        before = apply_profile([_wire(base.tools[name]) for name in kept], profile)
        after = apply_profile([_wire(head.tools[name]) for name in kept], profile)
        for name in kept:
            old = _keyed(f for f in before.findings if f.tool == name)
            new = _keyed(f for f in after.findings if f.tool == name)
            for key in sorted(set(new) - set(old)):
                finding = new[key]
                kind = K.CLIENT_PROFILE_FAILS if finding.kind == "error" else K.CLIENT_PROFILE_LOSES
                change = make_change(
                    kind, name, finding.pointer, profile=profile, detail=finding.message
                )
                changes.append(head.tools[name].locate(change))
    for name in head.tools:  # a kept name keeps its length: only new and renamed tools
        if name in base.tools:
            continue
        over = check_names([name], settings.server_name, settings.name_budget)
        budget = [f for f in over if f.transform == "name_budget"]
        if budget:
            change = make_change(K.NAME_OVER_BUDGET, name, "/name", detail=budget[0].message)
            changes.append(head.tools[name].locate(change))
    changes += _size_changes(base, head, settings)
    return changes


def _size_changes(base: Side, head: Side, settings: ClientSettings) -> list[Change]:
    changes: list[Change] = []
    limit = settings.max_tool_bytes
    if limit is not None:
        for name, entry in head.tools.items():
            size = wire_bytes(_wire(entry))
            before = base.tools.get(name)
            if size > limit and (before is None or wire_bytes(_wire(before)) <= limit):
                detail = f"the tool is now {size} bytes, over max_tool_bytes = {limit}"
                changes.append(
                    entry.locate(make_change(K.SIZE_LIMIT_EXCEEDED, name, "", detail=detail))
                )
    limit = settings.max_total_bytes
    if limit is not None:
        old_total = payload_bytes([_wire(e) for e in base.tools.values()])
        new_total = payload_bytes([_wire(e) for e in head.tools.values()])
        if old_total <= limit < new_total:
            detail = (
                f"tools/list grows from {old_total} to {new_total} bytes, over "
                f"max_total_bytes = {limit}"
            )
            changes.append(make_change(K.SIZE_LIMIT_EXCEEDED, "(all tools)", "", detail=detail))
    return changes
