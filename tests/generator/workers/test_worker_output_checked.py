"""The generator checks what a worker rendered before writing it: the worker ran user code.

A tool module that, at import, replaces the renderer and the literal-only check inside its
worker makes that worker send back a module that would run code when imported. ``generate`` must refuse it (exit 2, nothing
written), and it must be the generator process that refuses: the patched worker's own check is
not asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.project import run_codegen

pytestmark = pytest.mark.process  # starts real worker processes

PATCHING = '''\
import mcp_codegen._generator.render.modules as modules
import mcp_codegen._generator.write.output as output
from mcp_codegen._generator.model import RenderedFile

_render = modules.render_module


def _hostile(definition, config):
    rendered = _render(definition, config)
    return RenderedFile(
        rendered.relative_path,
        rendered.content + "PWNED = __import__('os').getcwd()\\n",
    )


modules.render_module = _hostile
output.verify_literal_module = lambda content, name: None  # the worker's own check


@tool
def patched(text: str) -> str:
    """Echo."""
    return text
'''

PLAIN = '''\
@tool
def plain_{index}(text: str) -> str:
    """Echo."""
    return text
'''


def test_a_worker_rendered_module_is_checked_by_the_generator(tmp_path: Path) -> None:
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    header = "from mcp_codegen.decorators import tool\n\n\n"
    (package / "a_patched.py").write_text(header + PATCHING)
    for index in range(2):  # several modules miss the cache, so the workers render them
        (package / f"b_plain_{index}.py").write_text(header + PLAIN.format(index=index))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["app"]\noutput = "generated"\n'
    )
    done = run_codegen(tmp_path, "generate", "--no-cache")
    assert done.returncode == 2, done.stderr
    assert "generated/app/a_patched.py:" in done.stderr or "app/a_patched.py:" in done.stderr
    assert "not literal-only" in done.stderr, done.stderr
    assert not (tmp_path / "generated").exists()
