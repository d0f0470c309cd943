"""Compiled dataclass methods (``mcp_codegen._generator.compiled_methods``): a class made with the
table has the very code ``dataclasses`` compiles without it, the table is read back only when it
is intact, and a build's processes compile each method text once per project."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_codegen._generator import compiled_methods
from mcp_codegen._generator.compiled_methods import Table, install, table_path
from mcp_codegen._generator.project import CACHE_DIR
from mcp_codegen._shared.user_cache import user_cache_directory
from tests.helpers.project import Project, codegen_env


@pytest.fixture
def restore_exec() -> Iterator[None]:
    """The process's ``dataclasses`` as it was: no table."""
    yield
    if "exec" in vars(dataclasses):
        del dataclasses.exec  # type: ignore[attr-defined]


_NAMES = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "name", "value"]), unique=True)
_OPTIONS = st.fixed_dictionaries(
    {
        "frozen": st.booleans(),
        "eq": st.booleans(),
        "repr": st.booleans(),
        "unsafe_hash": st.booleans(),
        "slots": st.booleans(),
        "kw_only": st.booleans(),
    }
)


def _make(names: list[str], defaults: int, options: dict[str, Any], order: bool) -> type:
    """A class of ``names``, the last ``defaults`` of them with a default (one by a factory)."""
    fields: list[Any] = []
    for index, name in enumerate(names):
        if index < len(names) - defaults:
            fields.append((name, int))
        elif index % 2:
            fields.append((name, "list[int]", dataclasses.field(default_factory=list)))
        else:
            fields.append((name, str, dataclasses.field(default="x", compare=index % 3 == 0)))
    return dataclasses.make_dataclass(
        "Shape",
        fields,
        order=order and options["eq"],
        namespace={"__module__": __name__},
        **options,
    )


def _methods(cls: type) -> dict[str, types.FunctionType]:
    return {
        name: value
        for name, value in vars(cls).items()
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == "<string>"
    }


def _same_code(plain: type, tabled: type) -> None:
    expected, got = _methods(plain), _methods(tabled)
    assert expected.keys() == got.keys()
    for name, function in expected.items():
        assert got[name].__code__ == function.__code__, name  # bytecode, constants, flags, names
        assert got[name].__annotations__ == function.__annotations__, name  # no __future__ leak


@settings(max_examples=60, deadline=None)
@given(names=_NAMES, defaults=st.integers(0, 7), options=_OPTIONS, order=st.booleans())
def test_a_class_made_with_the_table_has_the_code_made_without_it(
    tmp_path_factory: pytest.TempPathFactory,
    names: list[str],
    defaults: int,
    options: dict[str, Any],
    order: bool,
) -> None:
    defaults = min(defaults, len(names))
    cache = tmp_path_factory.mktemp("cache")
    try:
        plain = _make(names, defaults, options, order)
        fresh = install(str(cache))  # compiles every text, into the table
        assert fresh is not None
        compiled = _make(names, defaults, options, order)
        compiled_texts = fresh.added
        fresh.save()
        reread = install(str(cache))  # every text's code from the file (marshalled)
        assert reread is not None
        loaded = _make(names, defaults, options, order)
        assert reread.added == 0 and (compiled_texts > 0) == bool(_methods(plain))
    finally:
        vars(dataclasses).pop("exec", None)
    _same_code(plain, compiled)
    _same_code(plain, loaded)
    if len(names) == defaults and options["repr"]:  # every field has a default: make one
        assert repr(loaded()) == repr(plain())


def test_exec_takes_the_callers_namespaces_as_the_builtin_does(
    tmp_path: Path, restore_exec: None
) -> None:
    table = install(str(tmp_path))
    assert table is not None
    text = "found.append((__name__, seen))"
    expected: list[Any] = []
    exec(text, None, {"found": expected, "seen": 1})
    got: list[Any] = []
    table.exec(text, None, {"found": got, "seen": 1})
    assert got == expected == [(__name__, 1)]
    namespace: dict[str, Any] = {}
    table.exec("x = 2", namespace)  # globals only: they are the locals too
    assert namespace["x"] == 2


_FROZEN = {
    "frozen": True,
    "eq": True,
    "repr": True,
    "unsafe_hash": False,
    "slots": False,
    "kw_only": False,
}


def _table_bytes(tmp_path: Path) -> tuple[str, bytes]:
    table = install(str(tmp_path))
    assert table is not None
    try:
        _make(["a", "b"], 1, _FROZEN, False)
    finally:
        vars(dataclasses).pop("exec", None)
    table.save()
    return table.path, Path(table.path).read_bytes()


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:-40] + bytes([data[-40] ^ 1]) + data[-39:], id="bit-flip"),
        pytest.param(lambda data: b"not a table\n" + data[12:], id="other-file"),
    ],
)
def test_a_damaged_table_is_ignored_and_written_again(
    tmp_path: Path, restore_exec: None, damage: Any
) -> None:
    path, intact = _table_bytes(tmp_path)
    Path(path).write_bytes(damage(intact))
    table = install(str(tmp_path))
    assert table is not None and table.codes == {}  # nothing of it is run
    _make(["a", "b"], 1, _FROZEN, False)
    table.save()
    assert Path(path).read_bytes() == intact  # the same texts, compiled again: the same bytes


def test_the_table_is_the_users_and_nothing_is_installed_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache_directory() == str(tmp_path / "mcp-codegen")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_directory() == str(tmp_path / "home" / ".cache" / "mcp-codegen")
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")  # relative: to each build's cwd, so unused
    assert user_cache_directory() is None
    assert install() is None
    assert "exec" not in vars(dataclasses)


def test_each_python_has_its_own_table(tmp_path: Path) -> None:
    path = table_path(str(tmp_path))
    assert path is not None
    assert Path(path).parent == tmp_path / compiled_methods.DIRECTORY
    assert sys.implementation.cache_tag in Path(path).name
    assert f"{sys.hexversion:08x}" in Path(path).name


def test_saving_merges_what_another_process_wrote(tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    first, second = Table(path, {}), Table(path, {})
    first.exec("x = 1", {}, {})
    second.exec("y = 2", {}, {})
    first.save()
    second.save()
    assert set(compiled_methods._read(path)) == {"x = 1", "y = 2"}


_IMPORT_LIBCST = """
import os, sys
from mcp_codegen._generator.compiled_methods import install
table = install(sys.argv[1])
import libcst
print(table.added)
table.save()
"""


@pytest.mark.process
def test_a_second_process_compiles_none_of_libcst_s_methods(tmp_path: Path) -> None:
    """The scan worker's case: libcst's node classes are made from the table."""

    def run() -> int:
        done = subprocess.run(
            [sys.executable, "-c", _IMPORT_LIBCST, str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        return int(done.stdout)

    assert run() > 300  # libcst's node classes: hundreds of methods compiled once
    assert run() == 0


_TOOLS = """
from dataclasses import dataclass

from mcp_codegen.decorators import tool


@dataclass
class Marker:
    a_field_only_this_project_has: int


@tool
def count(items: list[str]) -> int:
    return len(items)
"""


@pytest.mark.process
@pytest.mark.slow
def test_a_build_s_processes_keep_their_methods_in_the_users_table(
    project: Project, tmp_path: Path
) -> None:
    """The generator, the scan worker and the inspect worker each read and extend one table in
    the user's cache directory, a new project's first build finds there every text it needs, and
    a build that uses no cache leaves it alone."""
    env = codegen_env(XDG_CACHE_HOME=str(tmp_path / "user-cache"))
    path = Path(table_path(str(tmp_path / "user-cache" / "mcp-codegen")) or "")
    tools = project.write("pkg/tools.py", _TOOLS)
    assert project.run("generate", env=env).returncode == 0  # a cold build: "both" workers
    tools.write_text(_TOOLS + "# edited\n")
    assert project.run("generate", env=env).returncode == 0  # one module redone: split session
    texts = compiled_methods._read(str(path))
    assert any("a_field_only_this_project_has" in text for text in texts)  # the inspect worker
    assert any("whitespace_before_colon" in text for text in texts)  # libcst: the scan worker
    assert any("tool_count" in text and "rebuilt" in text for text in texts)  # BuildResult
    assert not (project.root / CACHE_DIR / compiled_methods.DIRECTORY).exists()
    written = path.stat().st_mtime_ns
    tools.write_text(_TOOLS + "# edited again\n")
    assert project.run("generate", env=env).returncode == 0
    assert path.stat().st_mtime_ns == written  # every process found every text it needed
    other = Project(tmp_path / "other")
    other.write("pkg/__init__.py", "")
    other.write("pkg/tools.py", _TOOLS)
    other.configure()
    assert other.run("generate", env=env).returncode == 0  # its first build, cold
    assert path.stat().st_mtime_ns == written  # compiled nothing the first project had not

    path.unlink()
    tools.write_text(_TOOLS + "# edited once more\n")
    assert project.run("generate", "--no-cache", env=env).returncode == 0
    assert not path.exists()  # neither read nor written by a build without the cache
    assert project.run("generate", env=env).returncode == 0  # the generator's classes again
    assert any("tool_count" in t and "rebuilt" in t for t in compiled_methods._read(str(path)))


def test_a_save_removes_what_killed_writers_left_an_hour_ago(tmp_path: Path) -> None:
    table = Table(str(tmp_path / "methods" / "table"), {})
    (tmp_path / "methods").mkdir()
    old, recent = tmp_path / "methods" / ".tmp.old", tmp_path / "methods" / ".tmp.recent"
    old.write_bytes(b"half a table")
    recent.write_bytes(b"being written now")
    os.utime(old, (0, old.stat().st_mtime - 3601))
    table.exec("x = 1", {}, {})
    table.save()
    assert not old.exists() and recent.exists()
    assert set(compiled_methods._read(table.path)) == {"x = 1"}
