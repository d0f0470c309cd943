"""The manifest entry: an edit that changes no module path takes ``generated/__init__.py`` from
the cache, so the generator process neither renders it nor reads the installed versions it
records; a bad entry is a miss with a warning.
(The hypothesis property in test_incremental.py covers staleness: config changes such as
``version``, and added or deleted modules, change the manifest.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._generator.cache.store import BuildCache
from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.discover import discover_sources, read_sources
from mcp_codegen._generator.pipeline import build
from mcp_codegen._generator.render import modules
from mcp_codegen._shared.format import MANIFEST, module_path
from tests.generator.cache.cache_support import TOOL, two_module_project
from tests.helpers.project import Project

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)


def _files(root: Path, use_cache: bool) -> tuple[tuple[tuple[str, str], ...], list[str]]:
    result = build(load_config(root / "pyproject.toml"), use_cache=use_cache)
    assert not result.errors, result.errors
    files = tuple((f.relative_path, f.content) for f in result.files)
    return files, [d.message for d in result.warnings]


def test_a_stored_manifest_of_the_wrong_kind_is_a_miss_with_a_warning(project: Project) -> None:
    root = two_module_project(project).root
    files, _ = _files(root, use_cache=True)
    config = load_config(root / "pyproject.toml")
    contents, _ = read_sources(discover_sources(config)[0], config)
    cache = BuildCache(config, contents)
    modules = [f for f in build(config).files if f.relative_path != MANIFEST]
    assert cache.load_manifest(modules) is not None  # stored by the first build
    cache.store.put(cache._manifest_key(modules), "not a rendered file")
    project.write("pkg/alpha.py", TOOL.format(name="alpha") + "# edited\n")
    cached, warnings = _files(root, use_cache=True)
    assert any("the stored manifest was ignored" in w for w in warnings), warnings
    assert cached == _files(root, use_cache=False)[0]
    assert dict(cached)[MANIFEST] == dict(files)[MANIFEST]


def test_an_edit_that_changes_no_module_path_renders_no_manifest(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = two_module_project(project).root
    assert project.run("generate").returncode == 0
    project.write("pkg/alpha.py", TOOL.format(name="alpha") + "# edited\n")

    def refuse(*args: object) -> None:
        raise AssertionError("the manifest was rendered, not taken from the cache")

    monkeypatch.setattr(modules, "render_manifest", refuse)
    cached, warnings = _files(root, use_cache=True)
    assert not warnings
    monkeypatch.undo()
    cold, _ = _files(root, use_cache=False)
    assert cached == cold  # byte for byte what a build without the cache gives


def test_an_added_module_renders_the_manifest_again(project: Project) -> None:
    root = two_module_project(project).root
    _files(root, use_cache=True)
    project.write("pkg/gamma.py", TOOL.format(name="gamma"))
    cached, _ = _files(root, use_cache=True)
    assert f'"{module_path("pkg.gamma")}"' in dict(cached)[MANIFEST]  # listed: rendered again
    assert cached == _files(root, use_cache=False)[0]
