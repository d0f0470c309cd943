"""Per-module reuse: whatever was edited, the build from the cache equals a build without it.

The property test applies random edit sequences to one small project (add, rename, remove and
retype a tool, edit a models module other modules import, delete or add a module, change a
configuration key, touch a file without changing it) and after every step compares the build
that used the cache with a ``--no-cache`` build of the same tree, byte for byte. The
deterministic tests below it check that reuse really happens: an unchanged module is not
imported again, and one that imports an edited module is.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import build
from tests.generator.cache.cache_support import (
    STEPS,
    State,
    apply_step,
    render_module,
    write_state,
)
from tests.helpers.project import Project, codegen_env


def _tree(root: Path, use_cache: bool) -> tuple[object, ...]:
    result = build(load_config(root / "pyproject.toml"), use_cache=use_cache)
    files = tuple((f.relative_path, f.content) for f in result.files)
    errors = tuple(str(d) for d in result.diagnostics if "cache entry" not in d.message)
    return files, errors


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("incremental")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    return root


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in codegen_env(PYTHONDONTWRITEBYTECODE="1").items():
        monkeypatch.setenv(name, value)


def _edit_sequences(test: Callable[..., None]) -> Callable[..., None]:
    """A property test over random edit sequences (``INCREMENTAL_EXAMPLES`` of them)."""
    return pytest.mark.process(
        settings(
            max_examples=int(os.environ.get("INCREMENTAL_EXAMPLES", "6")),
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )(given(steps=st.lists(STEPS, min_size=1, max_size=5))(test))
    )


@pytest.mark.slow
@_edit_sequences
def test_incremental_builds_equal_cold_builds(
    workspace: Path, steps: list[tuple[str, int, int]]
) -> None:
    _edits_equal_cold_builds(workspace, State.start(), steps)


@pytest.mark.slow
@_edit_sequences
def test_a_package_that_imports_every_tool_module_builds_as_cold(
    workspace: Path, steps: list[tuple[str, int, int]]
) -> None:
    """The common registration layout: the package's ``__init__`` imports every tool module, so
    importing any one imports all of them; the tools import a model and a constant it
    re-exports, and edits to either, to the constants behind them and to the ``__init__``
    itself still give the cold build."""
    _edits_equal_cold_builds(workspace, State.start(aggregated=True), steps)


def _edits_equal_cold_builds(
    workspace: Path, state: State, steps: list[tuple[str, int, int]]
) -> None:
    write_state(workspace, state)
    _tree(workspace, use_cache=True)  # whatever the cache held from the last example
    for step in steps:
        apply_step(workspace, state, step)
        incremental = _tree(workspace, use_cache=True)
        cold = _tree(workspace, use_cache=False)
        assert incremental == cold, f"after {step}"


MODELS = "from pydantic import BaseModel\n\n\nclass Shared(BaseModel):\n    a: int\n"
MARKED = """
from pathlib import Path

from mcp_codegen.decorators import tool
{imports}

Path(__file__).with_suffix(".imported").write_text("")


@tool
def {name}(value: {kind}) -> {kind}:
    return value
"""


def _imported(project: Project) -> set[str]:
    found = {p.stem for p in (project.root / "pkg").glob("*.imported")}
    for path in (project.root / "pkg").glob("*.imported"):
        path.unlink()
    return found


def _write_marked(project: Project, module: str, kind: str, shared: bool) -> None:
    imports = "from pkg.models import Shared" if shared else ""
    project.write(
        f"pkg/{module}.py", MARKED.format(imports=imports, name=f"{module}_tool", kind=kind)
    )


@pytest.mark.process
def test_only_what_changed_is_inspected_again(project: Project) -> None:
    project.write("pkg/models.py", MODELS)
    _write_marked(project, "leaf", "int", shared=False)
    _write_marked(project, "user_a", "Shared", shared=True)
    _write_marked(project, "user_b", "Shared", shared=True)
    assert project.run("generate").returncode == 0
    assert _imported(project) == {"leaf", "user_a", "user_b"}

    _write_marked(project, "leaf", "str", shared=False)  # a leaf module
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert _imported(project) == {"leaf"}

    project.write("pkg/models.py", MODELS + "    b: str = 'x'\n")  # the shared model
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert _imported(project) == {"user_a", "user_b"}
    assert project.run("check", "--no-cache").returncode == 0
    assert _imported(project) == {"leaf", "user_a", "user_b"}

    (project.root / "pkg" / "leaf.py").touch()  # same content
    done = project.run("check")
    assert done.returncode == 0, done.stderr
    assert _imported(project) == set()


@pytest.mark.process
def test_a_copied_project_and_cache_give_hits(project: Project, tmp_path: Path) -> None:
    project.write("pkg/models.py", MODELS)
    _write_marked(project, "leaf", "int", shared=False)
    _write_marked(project, "user_a", "Shared", shared=True)
    assert project.run("generate").returncode == 0
    _imported(project)
    copy = Project(tmp_path / "elsewhere" / "checkout")
    shutil.copytree(project.root, copy.root)
    done = copy.run("check")
    assert done.returncode == 0, done.stderr
    assert _imported(copy) == set(), "a restored cache must answer in another directory"
    _write_marked(copy, "leaf", "str", shared=False)
    done = copy.run("generate")
    assert done.returncode == 0, done.stderr
    assert _imported(copy) == {"leaf"}, "module entries must hit in another directory too"
    assert copy.snapshot() != project.snapshot()
    assert copy.run("check", "--no-cache").returncode == 0


def _rebuilt(root: Path) -> set[str]:
    result = build(load_config(root / "pyproject.toml"), use_cache=True)
    assert not result.errors, result.errors
    return {definition.source.module for definition in result.rebuilt}


@pytest.mark.process
def test_a_package_that_imports_every_tool_module_redoes_only_what_changed(
    tmp_path: Path,
) -> None:
    """Importing one tool module runs the ``__init__`` that imports all of them, yet an edit
    redoes only the modules whose schemas can read what changed."""
    state = State.start(aggregated=True)
    state.modules["t1"] = [("tool_9", "Extra")]  # the only user of Extra (and LIMIT)
    (tmp_path / "pkg").mkdir()
    write_state(tmp_path, state)
    assert _rebuilt(tmp_path) == {"pkg.t0", "pkg.t1", "pkg.t2"}

    apply_step(tmp_path, state, ("retype", 2, 0))  # a leaf tool module
    assert _rebuilt(tmp_path) == {"pkg.t2"}
    apply_step(tmp_path, state, ("extra", 0, 0))  # the model only t1 uses
    assert _rebuilt(tmp_path) == {"pkg.t1"}
    apply_step(tmp_path, state, ("consts", 0, 0))  # the constant and enumeration behind it
    assert _rebuilt(tmp_path) == {"pkg.t1"}
    apply_step(tmp_path, state, ("shared", 0, 0))  # every tool module imports it itself
    assert _rebuilt(tmp_path) == {"pkg.t0", "pkg.t1", "pkg.t2"}
    apply_step(tmp_path, state, ("init", 0, 0))  # the package every module is in
    assert _rebuilt(tmp_path) == {"pkg.t0", "pkg.t1", "pkg.t2"}


HELPERS = '''
import functools
import inspect


def with_limit(function):
    """Adds a ``limit`` parameter to the tool's signature."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args)

    signature = inspect.signature(function)
    extra = inspect.Parameter("limit", inspect.Parameter.KEYWORD_ONLY, annotation={kind})
    wrapper.__signature__ = signature.replace(parameters=[*signature.parameters.values(), extra])
    return wrapper
'''
DECORATED = '''
from mcp_codegen.decorators import tool
from pkg import with_limit


@tool
@with_limit
def {name}(value: int) -> int:
    """{name}."""
    return value
'''


@pytest.mark.process
def test_a_decorator_from_a_helper_module_reexported_by_the_package_is_a_dependency(
    tmp_path: Path,
) -> None:
    """The decorator that changes the tool's signature is defined in ``pkg/helpers.py`` and
    imported through the package's ``__init__`` (which imports every tool module): editing
    the helper redoes the module that uses it, and not the other one."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    (tmp_path / "pkg" / "__init__.py").write_text(
        "from pkg.helpers import with_limit\n\nfrom pkg import decorated, plain  # noqa: E402\n"
    )
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS.format(kind="int"))
    (tmp_path / "pkg" / "decorated.py").write_text(DECORATED.format(name="decorated_tool"))
    (tmp_path / "pkg" / "plain.py").write_text(render_module([("plain_tool", "int")]))
    (tmp_path / "pkg" / "models.py").write_text(MODELS)
    assert _rebuilt(tmp_path) == {"pkg.decorated", "pkg.plain"}
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS.format(kind="str"))
    assert _rebuilt(tmp_path) == {"pkg.decorated"}
    assert _tree(tmp_path, use_cache=True) == _tree(tmp_path, use_cache=False)
    assert '"string"' in next(
        content for path, content in _tree(tmp_path, use_cache=True)[0] if "decorated" in path
    )
