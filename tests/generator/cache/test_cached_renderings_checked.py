"""A rendering taken from the cache is checked to be literal-only before it is written, like
a fresh one (a cache restored from elsewhere is not trusted to hold only what we rendered)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mcp_codegen._generator.cache.stored_entries import EntryStore
from mcp_codegen._generator.model import RenderedFile
from tests.helpers.project import Project

TOOLS = """
from mcp_codegen.decorators import tool


@tool
def {name}(value: {kind}) -> {kind}:
    return value
"""


@pytest.mark.process
def test_a_tampered_cached_rendering_is_refused_when_written(project: Project) -> None:
    project.write("pkg/alpha.py", TOOLS.format(name="alpha", kind="int"))
    project.write("pkg/beta.py", TOOLS.format(name="beta", kind="int"))
    assert (done := project.run("generate")).returncode == 0, done.stderr
    store = EntryStore(project.root / ".mcp-codegen-cache")
    tampered = 0
    for path, _ in store.entries():
        value = store.get(path.name)
        rendered = value[1] if isinstance(value, tuple) else None
        if isinstance(rendered, RenderedFile) and rendered.relative_path == "pkg/alpha.py":
            bad = replace(rendered, content=rendered.content + "import os\nos.system('x')\n")
            store.put(path.name, (value[0], bad, *value[2:]))
            tampered += 1
    assert tampered == 1
    (project.root / "generated" / "pkg" / "alpha.py").unlink()  # so it must be written
    project.write("pkg/beta.py", TOOLS.format(name="beta", kind="str"))  # not a whole-build hit
    done = project.run("generate")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("pkg/alpha.py:"), done.stderr
    assert "cache clean" in done.stderr
    assert not (project.root / "generated" / "pkg" / "alpha.py").exists()
    # nothing was written: beta's output is still the first build's
    assert '"integer"' in (project.root / "generated" / "pkg" / "beta.py").read_text()
