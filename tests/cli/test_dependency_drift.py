"""Format 3 records the versions that decide inference; ``check`` explains a drift, ``diff``
shows it in its header, and a format-2 manifest is still read."""

from __future__ import annotations

import re
import shutil
from importlib.metadata import version
from pathlib import Path

import pytest

from mcp_codegen._shared.reader import parse_literal_module, read_manifest
from tests.helpers.project import Project

SOURCE = '''
from mcp_codegen.decorators import tool


@tool
def search(q: str) -> str:
    """Search."""
    return q
'''
PYDANTIC = version("pydantic")


def record_old_pydantic(manifest: Path) -> None:
    text = manifest.read_text()
    manifest.write_text(text.replace(f'"pydantic": "{PYDANTIC}"', '"pydantic": "2.0.0"'))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write("pkg/tools.py", SOURCE)
    assert project.run("generate").returncode == 0
    return project


@pytest.mark.process
def test_manifest_records_versions_and_check_explains_drift(project: Project) -> None:
    manifest = project.root / "generated" / "__init__.py"
    values = parse_literal_module(manifest.read_text())
    assert values["FORMAT"] == 3 and "TOOL_COUNT" not in values
    assert values["DEPENDENCIES"] == {
        "mcp-schema-codegen": version("mcp-schema-codegen"),
        "pydantic": PYDANTIC,
        "pydantic-core": version("pydantic-core"),
    }
    assert read_manifest(project.root / "generated")["MODULES"] == ("pkg/tools.py",)

    # Only the recorded versions differ: the schemas are the same, so the tree is fresh.
    record_old_pydantic(manifest)
    done = project.run("check")
    assert done.returncode == 0, done.stderr
    assert (
        f"pydantic 2.0.0 -> {PYDANTIC}" in done.stdout
        and "without changing any schema" in done.stdout
    )

    # The old pydantic also wrote titles: the upgrade changed a schema, and check says so.
    module = project.root / "generated" / "pkg" / "tools.py"
    module.write_text(
        re.sub(
            r'("q": \{\n(\s+))"type": "string",',
            r'\1"title": "Q",\n\2"type": "string",',
            module.read_text(),
        )
    )
    done = project.run("check")
    assert done.returncode == 1
    assert (
        f"dependency drift since the tree was generated: pydantic 2.0.0 -> {PYDANTIC}"
        in done.stderr
    )
    assert re.search(
        r"pkg/tools.py:5: search: title of input 'q' changed: \"Q\" -> absent .*\[title-changed\]",
        done.stderr,
    )


@pytest.mark.process
def test_diff_header_shows_version_changes_and_reads_format_2(
    project: Project, tmp_path: Path
) -> None:
    base = tmp_path / "base"
    shutil.copytree(project.root / "generated", base)
    record_old_pydantic(base / "__init__.py")
    done = project.run("diff", str(base), "generated")
    assert done.returncode == 0, done.stderr
    assert f"inference dependencies: pydantic 2.0.0 -> {PYDANTIC}" in done.stdout

    # A format-2 manifest (TOOL_COUNT, no DEPENDENCIES) diffs against format 3 unchanged.
    manifest = base / "__init__.py"
    text = re.sub(r"^DEPENDENCIES = \{\n(?:    .*\n)*?\}\n", "", manifest.read_text(), flags=re.M)
    manifest.write_text(text.replace("FORMAT = 3", "FORMAT = 2") + "TOOL_COUNT = 1\n")
    (base / "pkg" / "tools.py").write_text(
        (base / "pkg" / "tools.py").read_text().replace("FORMAT = 3", "FORMAT = 2")
    )
    assert read_manifest(base)["TOOL_COUNT"] == 1
    done = project.run("diff", str(base), "generated")
    assert done.returncode == 0, done.stderr
    assert "no schema changes" in done.stdout and "inference dependencies" not in done.stdout
