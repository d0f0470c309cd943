"""Tool-name limits: the MCP spec's, the model APIs', and a client's server-name prefix budget.

Each broken limit is a ``warning`` finding whose ``transform`` names the rule (``spec_name``,
``model_name``, ``name_budget``); ``mcp-codegen lint --strict`` fails on it, and ``generate``
prints it at the tool's source (``mcp_codegen._generator.assemble.finalize``). The spec says names SHOULD match, and the
frameworks serve other names, so none of these limits stops generation: only a name that cannot
be served at all is an error (``unservable_name``).
"""

from __future__ import annotations

import re
import unicodedata

from mcp_codegen._profiles import Finding

#: MCP spec (2025-11-25, "Tool names"): 1-128 characters of A-Z a-z 0-9 _ - .
SPEC_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
#: Function names in the model APIs (OpenAI, Anthropic; Gemini caps them at 64 too).
MODEL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: Cursor drops a tool whose server name plus tool name is longer than this.
DEFAULT_NAME_BUDGET = 60


def unservable_name(name: object) -> str | None:
    """Why ``name`` cannot be a tool name at all, or ``None``: it must be a non-empty string
    without control characters or lone surrogates, which do not survive JSON, terminals and
    logs reliably (a client could list a name it can never call back)."""
    if not isinstance(name, str):
        return f"a tool name must be a string, got {type(name).__name__}"
    if not name:
        return (
            "a tool needs a non-empty name to be listed and called; pass name= with 1-128 "
            "characters of A-Z a-z 0-9 _ - ."
        )
    for character in name:
        category = unicodedata.category(character)
        if category in ("Cc", "Cs"):
            what = "control character" if category == "Cc" else "lone surrogate"
            return (
                f"it contains the {what} U+{ord(character):04X}, which does not survive JSON, "
                "terminals and logs reliably; remove it"
            )
    return None


def _spec_detail(name: str) -> str:
    """What about ``name`` breaks the spec's pattern: its length, or the characters outside it."""
    if len(name) > 128:
        return f"{len(name)} characters here"
    outside = sorted({c for c in name if not SPEC_NAME.fullmatch(c)})
    return "not allowed here: " + " ".join(repr(c) for c in outside)


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
                    "the MCP spec says tool names SHOULD be 1-128 characters of A-Z a-z 0-9 _ - . "
                    f"({_spec_detail(name)}); it is served as written, but clients may refuse "
                    "or rewrite it; rename the tool to match",
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
