"""Tool-name limits: the MCP spec's, the model APIs', and a client's server-name prefix budget.

Each broken limit is a ``warning`` finding whose ``transform`` names the rule (``spec_name``,
``model_name``, ``name_budget``); ``mcp-codegen lint --strict`` fails on it, and ``generate``
prints it (``codegen.assemble``, which refuses names outside the spec outright).
"""

from __future__ import annotations

import re

from codegen.profiles import Finding

#: MCP spec (2025-11-25, "Tool names"): 1-128 characters of A-Z a-z 0-9 _ - .
SPEC_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
#: Function names in the model APIs (OpenAI, Anthropic; Gemini caps them at 64 too).
MODEL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: Cursor drops a tool whose server name plus tool name is longer than this.
DEFAULT_NAME_BUDGET = 60


def _warn(tool: str, rule: str, message: str) -> Finding:
    return Finding("names", tool, "/name", rule, "warning", message)


def check_names(
    names: list[str], server_name: str = "", budget: int = DEFAULT_NAME_BUDGET
) -> list[Finding]:
    """Every limit each tool name breaks, in name order."""
    found: list[Finding] = []
    for name in names:
        if not SPEC_NAME.fullmatch(name):
            found.append(
                _warn(
                    name,
                    "spec_name",
                    "the MCP spec wants 1-128 characters of A-Z a-z 0-9 _ - . "
                    f"({len(name)} characters here); rename the tool",
                )
            )
        if not MODEL_NAME.fullmatch(name):
            found.append(
                _warn(
                    name,
                    "model_name",
                    "model APIs (OpenAI, Anthropic) accept only ^[a-zA-Z0-9_-]{1,64}$ as a "
                    "function name; rename the tool",
                )
            )
        total = len(server_name) + len(name)
        if total > budget:
            whose = f"server name {server_name!r} plus tool name" if server_name else "tool name"
            found.append(
                _warn(
                    name,
                    "name_budget",
                    f"{whose} is {total} characters; clients such as Cursor drop tools past "
                    f"{budget} (name_budget); shorten the name",
                )
            )
    return found
