"""The build entry names the entries that hold its generated files; a module entry's scan is
read only when the build uses it. Each failure mode is a miss (with a warning when an entry
holds the wrong thing), and the output is always the cold build's."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from mcp_codegen._generator.cache.store import BuildCache
from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.discover import discover_sources, load_source, read_sources
from mcp_codegen._generator.model import RenderedFile
from mcp_codegen._generator.pipeline import build
from mcp_codegen._shared.format import MANIFEST
from tests.generator.cache.cache_support import TOOL, two_module_project
from tests.helpers.project import Project

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)


def _project(project: Project) -> Path:
    return two_module_project(project).root


def _cache(root: Path) -> BuildCache:
    config = load_config(root / "pyproject.toml")
    contents, _ = read_sources(discover_sources(config)[0], config)
    return BuildCache(config, contents)


def _build(root: Path, use_cache: bool = True) -> tuple[dict[str, str], list[str]]:
    result = build(load_config(root / "pyproject.toml"), use_cache=use_cache)
    assert not result.errors, result.errors
    return {f.relative_path: f.content for f in result.files}, [w.message for w in result.warnings]


def test_the_build_entry_names_its_files_entries_and_answers_the_next_build(
    project: Project,
) -> None:
    root = _project(project)
    cold, _ = _build(root, use_cache=False)
    assert _build(root) == (cold, [])  # stores the entries
    cache = _cache(root)
    stored = cache.store.get(cache.build_key)
    # every generated file is a (path, key) pair naming the entry that holds it: no text
    assert sorted(path for path, _ in stored["files"]) == sorted(cold)
    assert stored["result"].files == ()
    for path, key in stored["files"]:
        held = cache.store.get(key)
        assert (held if path == MANIFEST else held[1]).content == cold[path]
    assert cache.load().files == tuple(  # the whole build, read back through the names
        RenderedFile(path, cold[path]) for path, _ in stored["files"]
    )
    assert len(cache.store._path(cache.build_key).read_bytes()) < sum(map(len, cold.values()))


def test_a_build_entry_whose_file_was_pruned_is_a_silent_miss(project: Project) -> None:
    root = _project(project)
    cold, _ = _build(root, use_cache=False)
    _build(root)
    cache = _cache(root)
    _, key = next(pair for pair in cache.store.get(cache.build_key)["files"] if "alpha" in pair[0])
    cache.store._path(key).unlink()  # as ``prune`` would
    assert cache.load() is None
    assert _build(root) == (cold, [])  # from the module entries, re-rendered: no warning
    assert _cache(root).load() is not None  # and stored again


def test_entries_holding_another_module_s_rendering_are_misses_with_a_warning(
    project: Project,
) -> None:
    root = _project(project)
    cold, _ = _build(root, use_cache=False)
    _build(root)
    cache = _cache(root)
    keys = dict(cache.store.get(cache.build_key)["files"])
    alpha, beta = keys["pkg/alpha.py"], keys["pkg/beta.py"]
    cache.store.put(alpha, cache.store.get(beta))  # a valid entry, but of the other module
    built, warnings = _build(root)
    assert built == cold
    assert any("the stored build was ignored" in w for w in warnings), warnings
    assert any("cache entry for pkg/alpha.py was ignored" in w for w in warnings), warnings


def test_a_module_entry_whose_scan_cannot_be_read_is_inspected_again(project: Project) -> None:
    root = _project(project)
    cold, _ = _build(root, use_cache=False)
    _build(root)
    project.write("pkg/beta.py", TOOL.format(name="beta") + "# edited\n")  # no whole-build hit
    cache = _cache(root)
    config = load_config(root / "pyproject.toml")
    source = load_source(root / "pkg" / "alpha.py", config)
    key = cache.module_key(source)
    entry = cache.store.get(key)
    assert isinstance(entry["scanned"], bytes)  # pickled apart, read only when used
    cache.store.put(key, {**entry, "scanned": pickle.dumps("not a scan")})
    built, warnings = _build(root)
    assert built == _build(root, use_cache=False)[0]
    assert built["pkg/alpha.py"] == cold["pkg/alpha.py"]
    assert any(
        "cache entry for pkg/alpha.py was ignored: it holds TypeError: str" in w for w in warnings
    ), warnings
    assert _build(root)[1] == []  # inspected again and stored again
