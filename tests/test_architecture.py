"""The package's shape, kept by tools rather than by review.

- The import-linter contracts of pyproject.toml (layers, the neutral shared package, the runtime
  never importing the build, private modules, the standard-library-only modules, no cycles)
  all hold: ``lint-imports`` is run as ``nox -s lint`` runs it.
- The "stdlib-only" contract lists every third-party package codegen imports anywhere, so a new
  dependency cannot slip past it unlisted.
- No module of mcp_codegen/ is over ``MAX_LINES`` lines unless its docstring starts with a reason
  (a line beginning ``LONG_REASON``).
- No function of mcp_codegen/ is over ``MAX_FUNCTION_LINES`` lines (``LONG_FUNCTIONS`` lists the
  ones still to split), and every import inside a function gives its reason in a comment:
  docs/development.md.
- No two modules of mcp_codegen/ share a basename (``__init__``/``__main__`` aside).
- No test imports a private name of another test module (shared helpers live in tests/helpers/
  or the package's ``*_support.py``).
- Every package of mcp_codegen has quick tests (not marked ``process``, ``e2e`` or ``slow``), so
  ``nox -s quick`` touches each.
- A test imports a private module (``_name``) of codegen only from the test package that mirrors
  the codegen package owning it (tests/runtime/** may import ``mcp_codegen.runtime._stdio.fastpath``,
  tests/generator/** may not).

Imports are read with ``ast`` (never by importing), including those inside functions and under
``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.helpers.project import REPO

CODEGEN = REPO / "mcp_codegen"
TESTS = REPO / "tests"
MAX_LINES = 600
#: A module over MAX_LINES says why on one of its first lines, e.g.
#: ``Over 600 lines: one table of every rule; splitting it would scatter the table.``
LONG_REASON = "Over 600 lines:"


def _modules(root: Path) -> list[Path]:
    return sorted(
        path for path in root.rglob("*.py") if "__pycache__" not in path.parts and path.is_file()
    )


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, absolute module name)`` for every import in ``path``."""
    name = _module_name(path)
    yield from imports_in(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")


def imports_in(source: str, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """``(line, absolute module name)`` for every import in ``source`` (the text of ``module``),
    relative ones resolved; ``from a import b`` yields both ``a`` and ``a.b`` (``b`` may be a
    module)."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            yield node.lineno, target
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}"


def _contract(contract_id: str) -> dict[str, object]:
    with open(REPO / "pyproject.toml", "rb") as file:
        contracts = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    (found,) = [contract for contract in contracts if contract["id"] == contract_id]
    return found


#: the standard library of every supported Python: this interpreter's, and the modules newer
#: releases renamed (``_sha2``, 3.12's name for ``_sha256``)
STDLIB = sys.stdlib_module_names | {"_sha2"}


def third_party_imports(imports: dict[str, list[str]]) -> dict[str, set[str]]:
    """Top-level package -> the modules importing it, for every import (``module -> imported
    names``) that is neither the standard library nor codegen itself."""
    found: dict[str, set[str]] = defaultdict(set)
    for module, names in imports.items():
        for name in names:
            top = name.split(".")[0]
            if top and top != "mcp_codegen" and top not in STDLIB:
                found[top].add(module)
    return dict(found)


def _codegen_imports() -> dict[str, list[str]]:
    return {_module_name(p): [name for _, name in imported_modules(p)] for p in _modules(CODEGEN)}


def private_codegen_module(module: str) -> str | None:
    """The codegen package owning the private module that ``module`` names, or ``None``:
    ``mcp_codegen.runtime._stdio.fastpath`` -> ``mcp_codegen.runtime``. A private *name* of a public
    module (``mcp_codegen.decorators._UNSET``) is not a private module."""
    parts = module.split(".")
    if parts[0] != "mcp_codegen":
        return None
    # The top-level internal packages (``mcp_codegen._generator``) are the library's inside, open to
    # every test; what is private is a ``_name`` module below a package.
    for index, part in enumerate(parts[2:], start=2):
        if part.startswith("_") and not part.startswith("__"):
            if REPO.joinpath(*parts[:index]).with_suffix(".py").is_file():
                return None  # a name inside a public module
            return ".".join(parts[:index])
    return None


@pytest.mark.process
def test_the_import_linter_contracts_are_kept() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command as c;"
            " sys.exit(c(['--no-cache']))",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout
    with open(REPO / "pyproject.toml", "rb") as file:
        declared = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    assert done.stdout.count(" KEPT") == len(declared) >= 6, done.stdout


def test_the_stdlib_only_contract_forbids_every_third_party_package_codegen_imports() -> None:
    used = third_party_imports(_codegen_imports())
    assert {"pydantic", "libcst", "mcp"} <= used.keys()  # the walk sees codegen's dependencies
    forbidden = set(_contract("stdlib-only")["forbidden_modules"])  # type: ignore[arg-type]
    missing = {top: sorted(users) for top, users in used.items() if top not in forbidden}
    assert missing == {}, (
        f"add these to forbidden_modules of the 'stdlib-only' contract in pyproject.toml: {missing}"
    )


def test_the_import_walker_sees_lazy_relative_and_type_checking_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .scan import files\n"
        "from .. import _shared\n"
        "if TYPE_CHECKING:\n    import yaml\n"
        "def later():\n    import requests.adapters\n"
    )
    found = list(imports_in(source, "mcp_codegen._generator.probe", is_package=False))
    names = {name for _, name in found}
    assert {"mcp_codegen._generator.scan.files", "mcp_codegen._shared", "yaml"} <= names
    assert {line for line, _ in found} == {1, 2, 3, 5, 7}
    assert third_party_imports({"mcp_codegen._generator.probe": sorted(names)}) == {
        "yaml": {"mcp_codegen._generator.probe"},
        "requests": {"mcp_codegen._generator.probe"},
    }


def test_no_module_over_the_line_limit_without_a_reason() -> None:
    too_long = {}
    for path in _modules(CODEGEN):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > MAX_LINES and not any(
            line.lstrip().startswith(LONG_REASON) for line in lines[:15]
        ):
            too_long[str(path.relative_to(REPO))] = len(lines)
    assert too_long == {}, (
        f"split these modules, or give the reason on a line starting {LONG_REASON!r} "
        f"at the top of the docstring: {too_long}"
    )
    assert len(_modules(CODEGEN)) >= 60  # the walk found the package


MAX_FUNCTION_LINES = 80
#: Functions still over MAX_FUNCTION_LINES (issue 36.3): this set only shrinks, and the test
#: fails on an entry that is short now, so it never lists a function that was split.
LONG_FUNCTIONS: frozenset[str] = frozenset()


def function_lengths(path: Path) -> Iterator[tuple[str, int]]:
    """``(qualified name, lines)`` of every function and method defined in ``path``."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                yield name, child.end_lineno - child.lineno + 1  # type: ignore[operator]
                yield from walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(_parsed(path), "")


def unreasoned_local_imports(path: Path) -> list[int]:
    """The first line of each block of imports inside a function that gives no reason: a comment
    on the line above the block or on one of its lines (docs/development.md)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for function in ast.walk(_parsed(path)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for block in _import_blocks(function):
            first, last = block[0].lineno, block[-1].end_lineno or block[-1].lineno
            above = lines[first - 2].strip() if first >= 2 else ""
            if not above.startswith("#") and not any(
                "#" in lines[i - 1] for i in range(first, last + 1)
            ):
                found.append(first)
    return found


def _import_blocks(function: ast.AST) -> list[list[ast.stmt]]:
    """Runs of import statements that follow each other, in every statement list of ``function``
    (nested functions give their own)."""
    blocks: list[list[ast.stmt]] = []
    for node in ast.walk(function):
        if node is not function and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if not isinstance(statements, list):  # a lambda's or an expression's body
                continue
            run: list[ast.stmt] = []
            for statement in statements:
                if isinstance(statement, ast.Import | ast.ImportFrom):
                    run.append(statement)
                    continue
                if run:
                    blocks.append(run)
                run = []
            if run:
                blocks.append(run)
    return blocks


def test_no_function_over_the_limit() -> None:
    """docs/development.md: no function over MAX_FUNCTION_LINES lines."""
    long = {
        f"{path.relative_to(REPO)}::{name}": length
        for path in _modules(CODEGEN)
        for name, length in function_lengths(path)
        if length > MAX_FUNCTION_LINES
    }
    assert sorted(set(long) - LONG_FUNCTIONS) == [], f"split these functions: {long}"
    assert sorted(LONG_FUNCTIONS - set(long)) == [], "short now: remove them from LONG_FUNCTIONS"


def test_function_local_imports_say_why() -> None:
    """docs/development.md: an import inside a function gives its reason (a measured start-up
    cost, an optional dependency, user code loaded late) in a one-line comment."""
    unreasoned = {
        str(path.relative_to(REPO)): lines
        for path in _modules(CODEGEN)
        if (lines := unreasoned_local_imports(path))
    }
    assert unreasoned == {}, (
        f"give these function-local imports a reason, or move them up: {unreasoned}"
    )


def test_the_function_and_import_readers(tmp_path: Path) -> None:
    sample = (
        "def a():\n"
        "    import os\n"
        "    import sys\n"
        "    x = 1\n"
        "    # json is costly here\n"
        "    import json\n"
        "    def b():\n"
        "        from re import compile  # only when asked\n"
        "        return compile\n"
        "    return b\n"
        "class C:\n"
        "    def m(self):\n"
        "        import io\n"
    )
    path = tmp_path / "sample.py"
    path.write_text(sample, encoding="utf-8")
    assert unreasoned_local_imports(path) == [2, 13]
    assert dict(function_lengths(path)) == {"a": 10, "a.b": 3, "C.m": 2}


def test_no_two_codegen_modules_share_a_basename() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in _modules(CODEGEN):
        if path.stem not in ("__init__", "__main__"):
            by_name[path.stem].append(str(path.relative_to(REPO)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}


def test_the_private_module_finder() -> None:
    assert private_codegen_module("mcp_codegen.runtime._stdio.fastpath") == "mcp_codegen.runtime"
    assert private_codegen_module("mcp_codegen.runtime._stdio") == "mcp_codegen.runtime"
    assert private_codegen_module("mcp_codegen.decorators._UNSET") is None  # a name
    assert private_codegen_module("mcp_codegen.runtime._serve.server") == "mcp_codegen.runtime"
    assert private_codegen_module("mcp_codegen.runtime._hook.install") == "mcp_codegen.runtime"
    assert private_codegen_module("mcp_codegen.__main__") is None
    assert private_codegen_module("mcp._private") is None
    assert private_codegen_module("mcp_codegen._generator.pipeline") is None  # the inside, open
    assert private_codegen_module("mcp_codegen._profiles._base") == "mcp_codegen._profiles"


def _mirrored_package(test_package: str) -> str:
    """tests/runtime/** mirrors mcp_codegen.runtime; tests/generator/** mcp_codegen._generator."""
    internal = CODEGEN / f"_{test_package}"
    return f"mcp_codegen._{test_package}" if internal.is_dir() else f"mcp_codegen.{test_package}"


def test_tests_import_private_modules_only_of_the_package_they_mirror() -> None:
    wrong = []
    for path in _modules(TESTS):
        relative = path.relative_to(TESTS).parts
        if "fixtures" in relative:
            continue
        mirrored = _mirrored_package(relative[0])
        for line, module in imported_modules(path):
            owner = private_codegen_module(module)
            if owner is not None and owner != mirrored and not owner.startswith(mirrored + "."):
                wrong.append(f"{path.relative_to(REPO)}:{line}: {module} (private to {owner})")
    assert wrong == [], "\n".join(wrong)


@cache
def _parsed(path: Path) -> ast.Module:
    """A test file's tree, parsed once for the checks below."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _is_test_module(module: str) -> bool:
    parts = module.split(".")
    return parts[0] == "tests" and parts[-1].startswith("test_")


def test_no_test_imports_another_test_modules_private_names() -> None:
    """Shared helpers live in tests/helpers/ or the package's ``*_support.py``, never as a
    private name of another test module (docs/testing.md)."""
    wrong = []
    for path in _modules(TESTS):
        if "fixtures" in path.relative_to(TESTS).parts:
            continue
        tree = _parsed(path)
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _is_test_module(node.module or ""):
                for alias in node.names:
                    if alias.name.startswith("_"):
                        wrong.append(f"{path.relative_to(REPO)}:{node.lineno}: {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if _is_test_module(alias.name) and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
            ):
                wrong.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert wrong == [], "\n".join(wrong)


#: Markers that keep a test out of the quick tier (`nox -s quick`, docs/testing.md).
NOT_QUICK = {"process", "e2e", "slow"}


def _marker_names(node: ast.expr) -> set[str]:
    """The ``pytest.mark.NAME`` names inside a decorator or ``pytestmark`` value."""
    return {
        sub.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Attribute)
        and isinstance(sub.value, ast.Attribute)
        and sub.value.attr == "mark"
    }


def quick_tests(source: str | ast.Module) -> int:
    """How many test functions of a module are in the quick tier, read with ``ast``: not under a
    module ``pytestmark`` or a decorator naming ``process``, ``e2e`` or ``slow``."""
    tree = ast.parse(source) if isinstance(source, str) else source
    for node in tree.body:
        module_mark = isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        )
        if module_mark and _marker_names(node.value) & NOT_QUICK:  # type: ignore[attr-defined]
            return 0
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test_"
        ):
            marks = set().union(*(_marker_names(d) for d in node.decorator_list))
            count += not (marks & NOT_QUICK)
    return count


def test_the_quick_tier_reader() -> None:
    assert quick_tests("def test_a(): pass\n@pytest.mark.process\ndef test_b(): pass\n") == 1
    assert quick_tests("pytestmark = [pytest.mark.e2e]\ndef test_a(): pass\n") == 0
    assert quick_tests("pytestmark = pytest.mark.filterwarnings('x')\ndef test_a(): pass\n") == 1


def test_every_package_has_quick_tests() -> None:
    """`nox -s quick` touches every package of mcp_codegen: each mirroring tests/<package>/
    has tests outside the process, e2e and slow tiers."""
    packages = sorted(p.name for p in CODEGEN.iterdir() if (p / "__init__.py").is_file())
    counts = {
        package: sum(
            quick_tests(_parsed(path)) for path in _modules(TESTS / package.removeprefix("_"))
        )
        for package in packages
    }
    assert all(counts.values()), counts
