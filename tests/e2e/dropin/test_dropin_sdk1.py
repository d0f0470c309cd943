"""SDK 1.x-style sources (``from mcp.server.fastmcp import FastMCP``) under flavor "mcp".

This file runs with whichever major version of the official SDK is installed: against the 2.x
``MCPServer`` in the default sessions, and against the real 1.x ``FastMCP`` in
``nox -s dropin_sdk1`` (the two majors cannot share an environment). Either way the generated
tools must equal what the installed SDK serves for the same source.
"""

from __future__ import annotations

import importlib

import pytest

from tests.helpers.corpus import PROCESS_BUILDS, PUBLISHED, sdk_client_tools, tool_differences
from tests.helpers.json_text import unordered_json
from tests.helpers.project import run_codegen

pytestmark = pytest.mark.process


@pytest.mark.slow
def test_sdk1_style_sources_equal_the_installed_sdk() -> None:
    built, output = PROCESS_BUILDS.get("mcp", [PUBLISHED / "sdk1"])
    server = importlib.import_module("published.sdk1.server").mcp
    theirs = sdk_client_tools(server)
    assert sorted(built["wire"]) == sorted(theirs)
    wrong = {
        name: tool_differences(theirs[name], built["wire"][name])
        for name in theirs
        if unordered_json(theirs[name]) != unordered_json(built["wire"][name])
    }
    assert not wrong, "\n".join(wrong.values())
    # SDK 1.x keeps ToolAnnotations(read_only_hint=...) as an extra field of that name; 2.x
    # maps it to readOnlyHint. Either way the generated tool says what the installed SDK says.
    annotations = built["wire"]["sunrise"]["annotations"]
    assert annotations in (
        {"title": "Sunrise", "readOnlyHint": True, "idempotentHint": True},
        {"title": "Sunrise", "read_only_hint": True, "idempotent_hint": True},
    )

    done = run_codegen(output.parent, "verify", "--against", "published.sdk1.server:mcp")
    assert done.returncode == 0, done.stdout + done.stderr
