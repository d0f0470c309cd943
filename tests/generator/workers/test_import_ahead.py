"""A split session imports a lone edited module while its scan is made (``workers/ahead.py``):
once, with the same diagnostics as a build without the split, and leaving no trace when the
scan says the module is not imported at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import build
from mcp_codegen._generator.workers import prestart
from tests.helpers.project import in_process_builds  # noqa: F401 - the fixture, used by name

pytestmark = [
    pytest.mark.process,  # starts real processes (builds, servers or clients)
    pytest.mark.usefixtures("in_process_builds"),
]

#: Appends, at each import, how it was imported: by ``import_ahead`` or by the inspection.
COUNTED = '''
import inspect
from pathlib import Path

from mcp_codegen.decorators import tool

_how = "ahead" if any(f.function == "import_ahead" for f in inspect.stack()) else "inspection"
with open(Path(__file__).with_name("imports.log"), "a") as _log:
    _log.write(_how + "\\n")
{extra}

@tool
def counted(value: int = 1) -> int:
    """Counts."""
    return value
'''

OTHER = '''
from mcp_codegen.decorators import tool


@tool
def other(value: str = "x") -> str:
    """Another tool."""
    return value
'''


def _project(root: Path, flavor: str = "clean") -> Path:
    (root / "pyproject.toml").write_text(
        f'[tool.mcp-codegen]\nsources = ["pkg"]\nflavor = "{flavor}"\n'
    )
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "other.py").write_text(OTHER)
    return root


def _build(root: Path, *, split: bool, use_cache: bool = True) -> tuple[object, ...]:
    warm = prestart.start_split(root) if split else None
    result = build(load_config(root / "pyproject.toml"), use_cache=use_cache, warm=warm)
    if warm is not None:
        warm.stop()
    files = tuple((f.relative_path, f.content) for f in result.files)
    return files, tuple(str(d) for d in result.diagnostics if "cache entry" not in d.message)


def _log(root: Path) -> list[str]:
    path = root / "pkg" / "imports.log"
    lines = path.read_text().split() if path.exists() else []
    path.unlink(missing_ok=True)
    return lines


def test_a_lone_edited_module_is_imported_once_ahead_of_its_scan(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "pkg" / "counted.py").write_text(COUNTED.format(extra=""))
    _build(root, split=False)  # fill the cache
    _log(root)
    (root / "pkg" / "counted.py").write_text(COUNTED.format(extra="# edited"))
    split = _build(root, split=True)
    assert _log(root) == ["ahead"]  # imported once, by import_ahead
    assert split == _build(root, split=False, use_cache=False)
    assert _log(root) == ["inspection"]


def test_an_import_that_fails_ahead_is_reported_as_without_the_split(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "pkg" / "counted.py").write_text(COUNTED.format(extra=""))
    _build(root, split=False)
    _log(root)
    (root / "pkg" / "counted.py").write_text(COUNTED.format(extra="raise ValueError('boom')"))
    files, errors = _build(root, split=True)
    assert _log(root) == ["ahead"]  # not imported a second time for the inspection
    assert any("importing pkg.counted failed: ValueError: boom" in e for e in errors), errors
    assert (files, errors) == _build(root, split=False, use_cache=False)


#: Names the decorator (so it reaches a worker) but defines no tool the scanner reads, and
#: registers one at import in a way the text does not show: a build without the split never
#: imports it, so its registration must not be reported as an omission.
HIDDEN = """
from mcp.server.mcpserver import MCPServer

hidden_server = MCPServer("hidden")  # a stray "@tool" in this comment


def hidden(value: int) -> int:
    return value


getattr(hidden_server, "add_" + "tool")(hidden)
"""

MCP_TOOL = '''
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("visible")


@mcp.tool()
def visible(value: int) -> int:
    """Visible."""
    return value
'''


@pytest.mark.slow
def test_a_module_the_scan_finds_no_tools_in_leaves_no_registration(tmp_path: Path) -> None:
    root = _project(tmp_path, flavor="mcp")
    (root / "pkg" / "other.py").write_text(MCP_TOOL)
    (root / "pkg" / "hidden.py").write_text(HIDDEN)
    first = _build(root, split=False)
    assert not first[1], first[1]
    (root / "pkg" / "hidden.py").write_text(HIDDEN + "# edited\n")
    split = _build(root, split=True)
    assert split == _build(root, split=False, use_cache=False)
    assert not split[1], split[1]
