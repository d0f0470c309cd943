"""``mcp_codegen._shared.project_config``: which configuration is found, and what serving takes
from it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen._shared.project_config import (
    ConfigError,
    caller_config_file,
    import_root,
    module_config_file,
    nearest_config_file,
    read_config,
    runtime_settings,
)
from tests.helpers.project import Project, codegen_env


@pytest.fixture
def tree(tmp_path: Path) -> Project:
    """``/top`` holds the table; ``/top/sub`` a pyproject.toml without it; ``src/pkg/tools``
    a package inside a ``src/`` layout."""
    project = Project(tmp_path / "top")
    project.write(
        "pyproject.toml",
        """
        [project]
        name = "top"

        [tool.mcp-codegen]
        sources = ["src/pkg/tools", "loose.py"]
        output = "schemas"
        server_name = "notes"
        python_path = ["vendor"]
        """,
    )
    project.write("sub/pyproject.toml", '[project]\nname = "sub"\n')
    for package in ("src/pkg", "src/pkg/tools"):
        project.write(f"{package}/__init__.py", "")
    project.write("loose.py", "")
    return project


def test_the_nearest_file_with_the_table(tree: Project) -> None:
    sub = str(tree.root / "sub")
    # The generator's rule (the nearest file) and serving's (the nearest with the table) differ
    # only for a pyproject.toml that has no [tool.mcp-codegen].
    assert nearest_config_file(sub) == str(tree.root / "sub" / "pyproject.toml")
    assert nearest_config_file(sub, require_table=True) == str(tree.root / "pyproject.toml")
    tree.write("sub/mcp-codegen.toml", '[tool.mcp-codegen]\nsources = ["."]\n')
    assert nearest_config_file(sub) == str(tree.root / "sub" / "mcp-codegen.toml")  # wins


def test_runtime_settings_of_a_src_layout(tree: Project) -> None:
    root = tree.root
    settings = runtime_settings(str(root / "pyproject.toml"))
    assert settings.output == str(root / "schemas")
    assert settings.server_name == "notes"
    assert settings.import_paths == [str(root / "vendor"), str(root / "src"), str(root)]


def test_defaults_without_output_or_server_name(tmp_path: Path) -> None:
    (tmp_path / "mcp-codegen.toml").write_text('[tool.mcp-codegen]\nsources = ["a.py"]\n')
    settings = runtime_settings(str(tmp_path / "mcp-codegen.toml"))
    assert (settings.output, settings.server_name) == (str(tmp_path / "generated"), "")
    assert settings.import_paths == [str(tmp_path)]


def test_import_root_walks_above_every_package(tree: Project) -> None:
    root = tree.root
    assert import_root(str(root / "src/pkg/tools")) == str(root / "src")
    assert import_root(str(root / "src/pkg/tools/__init__.py")) == str(root / "src")
    assert import_root(str(root / "loose.py")) == str(root)


def test_errors_are_located(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.mcp-codegen]\nsources = ["a.py"]\noutput = = "x"\n')
    with pytest.raises(ConfigError) as broken:
        read_config(str(path))
    assert str(broken.value).startswith(f"{path}:3:10: cannot parse TOML (Invalid value")
    path.write_text('[tool.mcp-codegen]\nsources = ["a.py"]\n\noutput = 3\n')
    with pytest.raises(ConfigError, match=rf"^{path}:4:1: output must be a str"):
        runtime_settings(str(path))


@pytest.mark.process
def test_found_from_a_module_without_importing_it(tree: Project) -> None:
    tree.write("src/pkg/__init__.py", "raise SystemExit('imported')\n")
    code = (
        "import sys; from mcp_codegen._shared.project_config import module_config_file;"
        "print(module_config_file('pkg.tools.search')); print('pkg' in sys.modules)"
    )
    env = codegen_env()
    env["PYTHONPATH"] += os.pathsep + str(tree.root / "src")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd="/", env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [str(tree.root / "pyproject.toml"), "False"]
    assert module_config_file("no_such_top_level_module_here") is None


def test_caller_config_file(tree: Project) -> None:
    assert caller_config_file(str(tree.root / "src/pkg/tools/x.py")) == str(
        tree.root / "pyproject.toml"
    )
    assert caller_config_file(None) is None
    assert caller_config_file("<stdin>") is None
