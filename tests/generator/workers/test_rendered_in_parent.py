"""The generator renders every module itself; a worker only inspects.

A worker imports user code, which can patch anything in the worker's interpreter: here a tool
module replaces the renderer and the literal-only check in its worker at import. In a cold
build of several modules (no cache) the generated module must still be exactly what the
generator renders, since none of the text comes from the worker.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.helpers.project import run_codegen

pytestmark = pytest.mark.process  # starts real worker processes

PATCHING = """\
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
"""

TOOL = '''\
@tool
def {name}(text: str) -> str:
    """Echo."""
    return text
'''

HEADER = "from mcp_codegen.decorators import tool\n\n\n"


def _project(root: Path, first: str) -> Path:
    package = root / "app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a_patched.py").write_text(HEADER + first + "\n\n" + TOOL.format(name="patched"))
    for index in range(2):  # several modules miss the cache: a multi-module cold build
        (package / f"b_plain_{index}.py").write_text(HEADER + TOOL.format(name=f"plain_{index}"))
    (root / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["app"]\noutput = "generated"\n'
    )
    return root


def test_a_worker_that_patches_the_renderer_does_not_change_the_output(tmp_path: Path) -> None:
    patched = _project(tmp_path / "patched", PATCHING)
    # The same module without the patch, padded to the same line count: tool positions agree.
    plain = _project(tmp_path / "plain", "\n" * PATCHING.count("\n"))
    for root in (patched, plain):
        done = run_codegen(root, "generate", "--no-cache")
        assert done.returncode == 0, done.stderr
    written = (patched / "generated" / "app" / "a_patched.py").read_text(encoding="utf-8")
    assert "PWNED" not in written
    assert "'patched'" in written or '"patched"' in written
    for name in ("a_patched.py", "b_plain_0.py", "b_plain_1.py"):
        patched_text = (patched / "generated" / "app" / name).read_text(encoding="utf-8")
        plain_text = (plain / "generated" / "app" / name).read_text(encoding="utf-8")
        # The two sources differ in the patch only, so the modules only in its digest.
        digests = [_digest(root / "app" / name) for root in (patched, plain)]
        assert patched_text.replace(*digests) == plain_text, name


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
