"""Never a silent omission: every tool a real server registers at import is generated or
reported at its registration (mcp_codegen._generator.inspection.registrations / omissions).

The oracle is the server itself: its own ``list_tools`` in a fresh interpreter names every tool
it registers. Each registration line of the fixture carries ``# -> name ...``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import generate
from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import REPO

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "forms_sdk"
MARK = re.compile(r"#\s*->\s*([\w ]+)$")

LIST_TOOLS = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from forms_sdk import server, unreadable
names = [t.name for m in (server, unreadable) for t in asyncio.run(m.mcp.list_tools())]
print(json.dumps(sorted(names)))
"""
#: modules whose every registration the scanner reads (all generated); the others are reported
READABLE = ["server.py", "registrar.py", "helpers.py"]


def served_names() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", LIST_TOOLS, str(HERE)],
        check=True,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    ).stdout
    return json.loads(out)


def build(root: Path, flavor: str, files: list[str]) -> tuple[set[str], dict[tuple[str, int], str]]:
    """Generate ``files`` of the fixture: the generated tool names and the errors by position."""
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f"sources = {json.dumps([f'forms_sdk/{f}' for f in files])}\n"
        'output = "generated"\n'
        f'flavor = "{flavor}"\n',
        encoding="utf-8",
    )
    config = load_config(root / "pyproject.toml")
    result, _ = generate(config, use_cache=False)
    generated: set[str] = set()
    if not result.errors:
        _, modules = read_tree(config.output)
        generated = {tool["name"] for module in modules for tool in module["TOOLS"]}
    return generated, {(d.path, d.line): d.message for d in result.errors}


def marks() -> dict[str, tuple[str, int]]:
    """tool name -> (relative file, line) of its registration, from the fixture's comments."""
    found = {}
    for path in sorted(FIXTURE.glob("*.py")):
        for number, text in enumerate(path.read_text().splitlines(), 1):
            if m := MARK.search(text):
                for name in m.group(1).split():
                    found[name] = (f"forms_sdk/{path.name}", number)
    return found


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize("flavor", ["mcp", "clean"])
def test_every_registered_tool_is_generated_or_reported(tmp_path: Path, flavor: str) -> None:
    shutil.copytree(FIXTURE, tmp_path / "forms_sdk")
    served = served_names()
    expected = marks()
    assert sorted(expected) == served, "the fixture's marks must name exactly what it serves"
    generated, clean_errors = build(tmp_path, flavor, READABLE)
    assert not clean_errors, clean_errors
    _, at = build(tmp_path, flavor, [p.name for p in sorted(FIXTURE.glob("*.py"))])
    dropped = [name for name in served if name not in generated and expected[name] not in at]
    assert not dropped, f"silently dropped: {dropped}; errors: {at}"
    # The forms no scanner can read are reported, each saying why, and nothing else is.
    assert "run time" in at[expected["docs_search"]]
    assert "looped_one" in at[expected["looped_one"]]
    assert "looped_two" in at[expected["looped_two"]]
    assert "did not understand this form" in at[expected["custom"]]
    assert set(at) <= set(expected.values()), "errors only at registrations"
    assert generated == {
        n for n, where in expected.items() if where[0] != "forms_sdk/unreadable.py"
    }
