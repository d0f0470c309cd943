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


@pytest.mark.parametrize(("version", "module"), [("2.3.0", "mcp_types"), (None, "mcp_types")])
def test_sdk_2_and_fastmcp_alone_use_mcp_types(
    sdk_version: pytest.MonkeyPatch, version: str | None, module: str
) -> None:
    sdk_version.setattr(served, "installed_version", lambda name: version)
    assert served.mcp_types() is sys.modules[module]


def test_an_installed_sdk_1_decides_beside_a_leftover_mcp_types(
    sdk_version: pytest.MonkeyPatch,
) -> None:
    """pip keeps ``mcp-types`` when ``mcp`` is downgraded to 1.x (office-powerpoint-mcp-server):
    its 2.x models made the 1.x ``FastMCP`` refuse every tool with ``ToolAnnotations``."""
    import mcp_types  # importable here, as the leftover is

    asked: list[str] = []
    sdk_version.setattr(served, "installed_version", lambda name: asked.append(name) or "1.30.0")
    found = served.mcp_types()
    assert asked == ["mcp"]
    assert found is sys.modules["mcp.types"] and found is not mcp_types
