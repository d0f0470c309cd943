"""Which module of MCP protocol types a recorded server is driven with."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from mcp_codegen._registration import served


@pytest.fixture
def sdk_version(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    served.mcp_types.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    served.mcp_types.cache_clear()


def test_sdk_2_and_fastmcp_alone_use_mcp_types(sdk_version: pytest.MonkeyPatch) -> None:
    sdk_version.setattr(served, "installed_sdk1", lambda: None)  # SDK 2.x, or fastmcp alone
    assert served.mcp_types() is sys.modules["mcp_types"]


def test_an_installed_sdk_1_decides_beside_a_leftover_mcp_types(
    sdk_version: pytest.MonkeyPatch,
) -> None:
    """pip keeps ``mcp-types`` when ``mcp`` is downgraded to 1.x (office-powerpoint-mcp-server):
    its 2.x models made the 1.x ``FastMCP`` refuse every tool with ``ToolAnnotations``."""
    import mcp_types  # importable here, as the leftover is

    sdk_version.setattr(served, "installed_sdk1", lambda: "1.30.0")
    found = served.mcp_types()
    assert found is sys.modules["mcp.types"] and found is not mcp_types
