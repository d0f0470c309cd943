"""Client profiles: named lists of pure transforms from the served tools/list to what one model
API accepts, with a report of what each transform changed or lost (docs/profiles.md).

Standard library only, and each profile module is imported only when it is used.

Runs in: any. (The default for every module of this package.)
"""

from __future__ import annotations

import importlib

from mcp_codegen._profiles._base import KINDS, Finding, Profile, Report, restore_arguments
from mcp_codegen._shared.profile_names import PROFILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "KINDS",
    "PROFILES",
    "Finding",
    "Profile",
    "ProfiledTools",
    "apply_profile",
    "get_profile",
    "restore_arguments",
]


class ProfiledTools:
    """The tools as one profile serves them, what changed, and how to undo it for arguments."""

    __slots__ = ("findings", "null_means_absent", "profile", "tools")

    def __init__(
        self,
        profile: str,
        tools: list[dict[str, Any]],
        findings: list[Finding],
        null_means_absent: dict[str, list[tuple[str, ...]]],
    ) -> None:
        self.profile, self.tools, self.findings = profile, tools, findings
        self.null_means_absent = null_means_absent

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "error"]

    def losses(self) -> list[Finding]:
        """Every finding that is not a faithful change."""
        return [f for f in self.findings if f.kind != "changed"]


def get_profile(name: str) -> Profile:
    """The profile called ``name``; ``ValueError`` naming the known ones otherwise."""
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; known profiles: {', '.join(PROFILES)}")
    return importlib.import_module(PROFILES[name]).PROFILE  # type: ignore[no-any-return]


def apply_profile(tools: list[dict[str, Any]], name: str) -> ProfiledTools:
    """Each tool's ``inputSchema`` through the profile's transforms, in order (new dicts; the
    input is not changed). ``outputSchema`` stays exact: the MCP client validates
    ``structuredContent`` against it, and no model API reads it."""
    profile = get_profile(name)
    served: list[dict[str, Any]] = []
    findings: list[Finding] = []
    undo: dict[str, list[tuple[str, ...]]] = {}
    for tool in tools:
        report = Report(profile.name, str(tool.get("name", "")))
        schema = tool.get("inputSchema")
        if isinstance(schema, dict):
            for transform in profile.transforms:
                schema = transform(schema, "/inputSchema", report.using(transform.__name__))
        result = {**tool, "inputSchema": schema}
        for check in profile.checks:
            check(result, report.using(check.__name__))
        served.append(result)
        findings.extend(report.findings)
        if report.null_means_absent:
            undo[report.tool] = report.null_means_absent
    return ProfiledTools(profile.name, served, findings, undo)
