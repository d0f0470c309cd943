"""Output that does not depend on the caller's hash seed, time zone or locale (issue 10, item 5).

The fixtures in tests/fixtures/hashseed build defaults, ``Enum`` and ``Literal`` values by
iterating sets, the way published servers do. The workers pin ``PYTHONHASHSEED=0`` (and the time
zone and locale), so the oracle for each value is what a plain ``python`` with that seed computes
from the fixture's bytecode (a ``.pyc``, as a server that ran once or was installed has: the
workers run that code whether or not one exists, mcp_codegen._generator.constants.bytecode_semantics);
``--vary-hash-seed`` must warn at the ``file:line:col`` of exactly the values that change with
the seed.
"""

from __future__ import annotations

import ast
import compileall
import json
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._generator.hash_seeds import changed_pointers, compare_builds
from mcp_codegen._generator.model import (
    ModuleDefinition,
    Position,
    ScannedModule,
    ScannedParameter,
    ScannedTool,
    ToolDefinition,
)
from mcp_codegen._generator.pipeline import BuildResult
from mcp_codegen._generator.workers.prestart import worker_environment
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.project import REPO, Project, codegen_env, run_codegen

pytestmark = pytest.mark.process

FIXTURES = REPO / "tests" / "fixtures" / "hashseed"
CALLER_SEEDS = ("1", "12345", "random")  # generate ran with "random"
#: A caller that is not on UTC (the fixture's ``zone`` default reads the time zone at import).
CALLER = {"PYTHONHASHSEED": "random", "TZ": "Asia/Tokyo", "LANGUAGE": "de", "LC_ALL": "C.UTF-8"}


def _project(root: Path, package: str, flavor: str = "clean") -> Path:
    shutil.copytree(FIXTURES / package, root / package)
    (root / "pyproject.toml").write_text(
        f'[tool.mcp-codegen]\nsources = ["{package}"]\nflavor = "{flavor}"\n', encoding="utf-8"
    )
    return root


def _tools(root: Path, relative: str) -> dict[str, dict[str, Any]]:
    text = (root / "generated" / relative).read_text(encoding="utf-8")
    return {tool["name"]: tool for tool in parse_literal_module(text)["TOOLS"]}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixtures with their bytecode (hash-checked ``.pyc``, never recompiled)."""
    root = tmp_path_factory.mktemp("compiled") / "hashseed"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("__pycache__"))
    mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
    assert compileall.compile_dir(root, quiet=1, invalidation_mode=mode)
    return root


def _computed(compiled: Path, code: str, **env: str) -> Any:
    """What a plain interpreter computes from the fixtures' bytecode (JSON printed by ``code``)."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=codegen_env(PYTHONPATH=f"{compiled}:{REPO}", **env),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def _parameter_positions(path: Path, function: str) -> dict[str, tuple[int, int]]:
    """1-based positions of a function's parameters, read with ``ast``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            args = [*node.args.args, *node.args.kwonlyargs]
            return {a.arg: (a.lineno, a.col_offset + 1) for a in args}
    raise AssertionError(f"{function} is not in {path}")


@pytest.fixture(scope="module")
def clean_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _project(tmp_path_factory.mktemp("hashseed") / "proj", "hashseed_tools")
    done = run_codegen(root, "generate", env=codegen_env(**CALLER))
    assert done.returncode == 0, done.stderr
    return root


@pytest.mark.parametrize("seed", CALLER_SEEDS)
def test_check_no_cache_agrees_with_generate_under_any_caller_seed(
    clean_project: Path, seed: str
) -> None:
    done = run_codegen(clean_project, "check", "--no-cache", env=codegen_env(PYTHONHASHSEED=seed))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "generated/ is up to date (2 files)" in done.stdout


def test_the_answer_does_not_depend_on_the_projects_bytecode(tmp_path: Path) -> None:
    """A set display of constants iterates in another order read from a ``.pyc`` than compiled
    from source (hashseed_tools.catalog's ``REGIONS``): a ``generate`` that leaves bytecode
    behind, a ``check`` with it and one without it give the same tree."""
    root = _project(tmp_path / "proj", "hashseed_tools")
    writes_bytecode = codegen_env()
    writes_bytecode.pop("PYTHONDONTWRITEBYTECODE", None)
    assert run_codegen(root, "generate", env=writes_bytecode).returncode == 0
    bytecode = root / "hashseed_tools" / "__pycache__"
    assert any(bytecode.glob("catalog.*.pyc")), "the workers wrote no bytecode to read back"
    for _ in ("with the .pyc", "without it"):
        done = run_codegen(root, "check", "--no-cache", env=writes_bytecode)
        assert done.returncode == 0, done.stdout + done.stderr
        shutil.rmtree(bytecode)


def test_a_rebuild_without_early_workers_gives_the_same_tools(clean_project: Path) -> None:
    """A stored build that no longer matches: the workers start late (not in mcp_codegen._generator.workers.prestart)."""
    before = _tools(clean_project, "hashseed_tools/catalog.py")
    source = clean_project / "hashseed_tools" / "catalog.py"
    original = source.read_text(encoding="utf-8")
    try:
        source.write_text(original + "# touched\n", encoding="utf-8")
        done = run_codegen(clean_project, "check", env=codegen_env(PYTHONHASHSEED="7"))
        assert done.returncode == 1, done.stdout + done.stderr  # only the source hash changed
        assert "-# Source sha256:" in done.stdout
        assert '-                "default":' not in done.stdout
        done = run_codegen(clean_project, "generate", env=codegen_env(PYTHONHASHSEED="8"))
        assert done.returncode == 0, done.stderr
        assert _tools(clean_project, "hashseed_tools/catalog.py") == before
    finally:
        source.write_text(original, encoding="utf-8")
        assert run_codegen(clean_project, "generate").returncode == 0


def test_set_derived_values_are_the_ones_of_hash_seed_0(
    clean_project: Path, compiled: Path
) -> None:
    expected = _computed(
        compiled,
        "import json, hashseed_tools.catalog as c; print(json.dumps({"
        "'regions': ','.join(c.REGIONS), 'region': [m.value for m in c.Region], "
        "'fmt': list(c.FORMATS), 'weights': list({n: 1 for n in c.REGIONS}), "
        "'only': sorted(c.FORMATS), 'sorted_regions': ','.join(sorted(c.REGIONS))}))",
        PYTHONHASHSEED="0",
    )
    elsewhere = _computed(
        compiled,
        "import json, hashseed_tools.catalog as c; print(json.dumps(','.join(c.REGIONS)))",
        PYTHONHASHSEED="1",
    )
    assert elsewhere != expected["regions"], "seeds 0 and 1 must order this set differently"
    properties = _tools(clean_project, "hashseed_tools/catalog.py")["search_regions"][
        "inputSchema"
    ]["properties"]
    assert properties["regions"]["default"] == expected["regions"]
    assert properties["region"]["enum"] == expected["region"]
    assert properties["fmt"]["enum"] == expected["fmt"]
    assert list(properties["weights"]["default"]) == expected["weights"]
    # A set default is listed sorted (JSON has no sets); an explicitly sorted Literal keeps its
    # own order even though an equal Literal in another order was described first.
    assert properties["only"]["default"] == expected["only"]
    assert properties["sorted_fmt"]["enum"] == sorted(expected["fmt"])
    assert properties["sorted_regions"]["default"] == expected["sorted_regions"]


def test_time_zone_and_locale_are_pinned(clean_project: Path, compiled: Path) -> None:
    code = "import json, hashseed_tools.catalog as c, inspect; "
    code += "print(json.dumps(inspect.signature(c.zone).parameters['name'].default))"
    assert _computed(compiled, code, TZ="Asia/Tokyo") == "JST"  # what the caller's zone would give
    zone = _tools(clean_project, "hashseed_tools/catalog.py")["zone"]
    assert zone["inputSchema"]["properties"]["name"]["default"] == "UTC"
    env = worker_environment("0")
    assert (env["PYTHONHASHSEED"], env["TZ"], env["LC_ALL"], env["PYTHONUTF8"]) == (
        "0",
        "UTC",
        "C",
        "1",
    )
    assert "LANGUAGE" not in env


def test_vary_hash_seed_warns_at_each_value_that_changes(clean_project: Path) -> None:
    done = run_codegen(clean_project, "check", "--no-cache", "--vary-hash-seed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "is up to date" in done.stdout
    positions = _parameter_positions(
        clean_project / "hashseed_tools" / "catalog.py", "search_regions"
    )
    changing = {"regions": "default", "region": "enum", "fmt": "enum", "weights": "default"}
    warnings = [line for line in done.stderr.splitlines() if ": warning: " in line]
    expected = [
        f"hashseed_tools/catalog.py:{positions[name][0]}:{positions[name][1]}: warning: the "
        f"value at /inputSchema/properties/{name}/{key} of tool 'search_regions' changes with "
        "the hash seed ("
        for name, key in changing.items()
    ]
    assert len(warnings) == len(expected), done.stderr
    for line, start in zip(warnings, expected, strict=True):
        assert line.startswith(start), (line, start)
        assert "iterate sorted(...) instead" in line
    assert done.stderr.splitlines()[-1] == "mcp-codegen: 4 value(s) change with the hash seed"


@pytest.mark.slow
def test_fastmcp_flavor_and_verify_under_any_caller_seed(tmp_path: Path, compiled: Path) -> None:
    root = _project(tmp_path / "proj", "hashseed_fastmcp", flavor="fastmcp")
    assert run_codegen(root, "generate", env=codegen_env(**CALLER)).returncode == 0
    done = run_codegen(root, "check", "--no-cache", env=codegen_env(PYTHONHASHSEED="1"))
    assert done.returncode == 0, done.stdout + done.stderr
    # verify imports the real fastmcp server in a child that gets the workers' hash seed.
    done = run_codegen(
        root, "verify", "--against", "hashseed_fastmcp.server:mcp", env=codegen_env()
    )
    assert done.returncode == 0, done.stdout + done.stderr
    expected = _computed(
        compiled,
        "import json; from hashseed_fastmcp import server as s; "
        "print(json.dumps(','.join(s.REGIONS)))",
        PYTHONHASHSEED="0",
    )
    find = _tools(root, "hashseed_fastmcp/server.py")["find"]
    assert find["inputSchema"]["properties"]["region_list"]["default"] == expected
    assert find["_meta"]["fastmcp"]["tags"] == sorted(find["_meta"]["fastmcp"]["tags"])


def test_values_that_differ_per_run_or_machine_are_refused(project: Project) -> None:
    project.write(
        "pkg/tools.py",
        """
        from pathlib import Path

        from mcp_codegen.decorators import tool


        class Handle:
            pass


        @tool(meta={"tags": {"b", "a", "c"}})
        def tagged(q: str) -> str:
            return q


        @tool
        def handle(h: str = str(Handle())) -> str:
            return h


        @tool
        def data_dir(path: str = str(Path(__file__).resolve().parent / "data")) -> str:
            return path
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == (
        "pkg/tools.py:10:12: the value at /_meta/tags of tool 'tagged' is a set: JSON has no "
        "sets, and the order a set is listed in follows the process's hash seed; write a list "
        "in the order you want, e.g. ['a', 'b', 'c']"
    )
    assert lines[1].startswith(
        "pkg/tools.py:16:12: the value at /inputSchema/properties/h/default of tool 'handle' "
        "contains an object's repr with its memory address ('<pkg.tools.Handle object at 0x"
    )
    assert lines[1].endswith(
        "which changes on every run; give the object a __repr__ without its address, or write "
        "the value literally"
    )
    assert lines[2] == (
        "pkg/tools.py:21:14: the value at /inputSchema/properties/path/default of tool "
        f"'data_dir' contains the absolute path '{project.root.resolve()}' of the project's "
        "checkout, which differs on every machine; use a path relative to the project (or to "
        "the file), or write the value literally"
    )
    assert lines[3] == "mcp-codegen: 3 error(s); nothing was written"
    assert project.snapshot() == {}


def _module(description: str, position: Position) -> tuple[ModuleDefinition, ToolDefinition]:
    scanned = ScannedTool(
        function_name="f",
        qualname="f",
        name="f",
        position=Position(3, 1),
        is_async=False,
        docstring=None,
        parameters=(ScannedParameter("q", "POSITIONAL_OR_KEYWORD", "str", None, Position(4, 7)),),
        return_annotation_source=None,
        options={"description": description},
        option_positions={"description": position},
    )
    module = ScannedModule("/p/m.py", "m.py", "m", "/p", "0" * 64, (scanned,))
    wire = {"name": "f", "description": description, "inputSchema": {"type": "object"}}
    tool = ToolDefinition(wire=wire, function="m:f", box_field=None, position=Position(3, 1))
    return ModuleDefinition(source=module, tools=(tool,)), tool


def test_a_changed_decorator_value_is_reported_at_its_argument() -> None:
    ours, _ = _module("Regions: eu, us", Position(2, 19))
    theirs, _ = _module("Regions: us, eu", Position(2, 19))
    warnings = compare_builds(BuildResult(definitions=(ours,)), BuildResult(definitions=(theirs,)))
    assert warnings == [
        Diagnostic(
            "m.py",
            2,
            19,
            "the value at /description of tool 'f' changes with the hash seed ('Regions: eu, "
            "us' with PYTHONHASHSEED=0, 'Regions: us, eu' with 1), so every server start may "
            "compute another one: it comes from iterating a set or frozenset (or from id(), the "
            "time or another per-process value); iterate sorted(...) instead. The generated file "
            "keeps the value of PYTHONHASHSEED=0",
            severity="warning",
        )
    ]
    assert compare_builds(BuildResult(definitions=(ours,)), BuildResult(definitions=(ours,))) == []


def test_changed_pointers_sees_order_of_keys_and_of_lists() -> None:
    assert changed_pointers({"a": 1, "b": 2}, {"b": 2, "a": 1}) == [""]
    assert changed_pointers({"x": {"a": [1, 2]}}, {"x": {"a": [2, 1]}}) == ["/x/a"]
    assert changed_pointers({"x": [{"k": 1}, {"k": 2}]}, {"x": [{"k": 1}, {"k": 3}]}) == ["/x/1/k"]
    assert changed_pointers({"a/b": 1}, {"a/b": 2}) == ["/a~1b"]
    assert changed_pointers({"a": 1}, {"a": 1}) == []


def _keyword_positions(path: Path, function: str) -> dict[str, tuple[int, int]]:
    """1-based positions of the values of a function's decorator keywords, read with ``ast``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            (call,) = node.decorator_list
            assert isinstance(call, ast.Call)
            return {k.arg: (k.value.lineno, k.value.col_offset + 1) for k in call.keywords if k.arg}
    raise AssertionError(f"{function} is not in {path}")


@pytest.mark.slow
def test_set_derived_decorator_values_under_any_caller_seed(tmp_path: Path, compiled: Path) -> None:
    """``meta={"tags": [*TAGS]}`` and ``", ".join(REGIONS)`` with sets: the value of seed 0 under
    any caller seed, equal to what the real MCPServer serves, and a warning at each argument."""
    root = _project(tmp_path / "proj", "hashseed_decorators", flavor="mcp")
    assert run_codegen(root, "generate", env=codegen_env(**CALLER)).returncode == 0
    for seed in ("1", "12345"):
        done = run_codegen(root, "check", "--no-cache", env=codegen_env(PYTHONHASHSEED=seed))
        assert done.returncode == 0, done.stdout + done.stderr
    expected, elsewhere = (
        _computed(
            compiled,
            "import json; from hashseed_decorators import server as s; "
            "print(json.dumps([[*s.TAGS], 'Regions: ' + ', '.join(s.REGIONS)]))",
            PYTHONHASHSEED=seed,
        )
        for seed in ("0", "1")
    )
    assert expected != elsewhere, "seeds 0 and 1 must order these sets differently"
    tools = _tools(root, "hashseed_decorators/server.py")
    assert [tools["lookup"]["_meta"]["tags"], tools["lookup"]["description"]] == expected
    assert tools["lookup_sorted"]["_meta"]["tags"] == sorted(expected[0])
    done = run_codegen(root, "verify", "--against", "hashseed_decorators.server:mcp")
    assert done.returncode == 0, done.stdout + done.stderr
    done = run_codegen(root, "check", "--no-cache", "--vary-hash-seed")
    assert done.returncode == 0, done.stdout + done.stderr
    where = _keyword_positions(root / "hashseed_decorators" / "server.py", "lookup")
    warned = sorted(
        (line.split(": warning: ")[0], line.split(" of tool ")[0].split("value at ")[1])
        for line in done.stderr.splitlines()
        if ": warning: " in line
    )
    assert warned == sorted(
        [
            ("hashseed_decorators/server.py:{}:{}".format(*where["meta"]), "/_meta/tags"),
            ("hashseed_decorators/server.py:{}:{}".format(*where["description"]), "/description"),
        ]
    )
