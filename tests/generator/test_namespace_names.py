"""Modules in PEP 420 namespace portions are generated under the name Python imports them by,
so ``use_generated(strict=True)`` finds every entry and lists exactly what the plain server
lists (mcp_codegen._generator.discover.module_name_for)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen._generator.discover import module_name_for
from tests.helpers.project import REPO, Project

LIST = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "hooked":
    from mcp_codegen.runtime import use_generated
    use_generated(sys.argv[3], strict=True)
import pkg.server.tools.cache
from pkg.server.app import mcp
print(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in asyncio.run(mcp.list_tools())], sort_keys=True))
"""


def test_a_namespace_portion_inside_a_package_is_named_as_python_imports_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "src/pkg/server/tools").mkdir(parents=True)
    for init in ("src/pkg/__init__.py", "src/pkg/server/__init__.py"):
        (tmp_path / init).write_text("")
    module = tmp_path / "src/pkg/server/tools/cache.py"
    module.write_text("")
    assert module_name_for(module) == ("pkg.server.tools.cache", tmp_path / "src")
    # a configured python_path entry stays an import root
    assert module_name_for(module, (tmp_path / "src/pkg/server",)) == (
        "tools.cache",
        tmp_path / "src/pkg/server",
    )


@pytest.mark.slow
@pytest.mark.process
def test_strict_hook_lists_what_the_plain_server_lists(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("src/pkg/__init__.py", "")
    project.write("src/pkg/server/__init__.py", "")
    project.write(
        "src/pkg/server/app.py",
        'from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer("ns")\n',
    )
    project.write(
        "src/pkg/server/tools/cache.py",
        """
        from pkg.server.app import mcp


        @mcp.tool()
        def cache_get(key: str, default: str | None = None) -> str:
            \"\"\"Read a cached value.\"\"\"
            return key
        """,
    )
    project.configure('sources = ["src"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "generated/pkg/server/tools/cache.py").is_file()

    def listing(mode: str) -> list[dict[str, object]]:
        out = subprocess.run(
            [sys.executable, "-c", LIST, str(tmp_path / "src"), mode, str(tmp_path / "generated")],
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert listing("hooked") == listing("plain")
