"""docs/architecture.md's generated sections match the code (docs/gen_architecture.py)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "docs" / "gen_architecture.py"


def load_script():
    spec = importlib.util.spec_from_file_location("gen_architecture", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


gen = load_script()


def test_committed_map_is_what_the_code_says():
    committed = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert committed == gen.generated(committed), (
        "docs/architecture.md drifted from the code: run `python docs/gen_architecture.py`"
    )


@pytest.mark.process
def test_check_mode_exits_0_on_the_committed_doc():
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=REPO
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_every_module_is_mapped_once():
    rows = [
        line.split("|")[1].strip().strip("`")
        for line in (REPO / "docs" / "architecture.md").read_text().splitlines()
        if line.startswith("| `mcp_codegen")
    ]
    on_disk = set()
    for path in (REPO / "mcp_codegen").rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        on_disk.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert sorted(rows) == sorted(on_disk)


def test_an_edited_row_is_restored_and_reported(tmp_path):
    committed = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    row = next(
        line
        for line in committed.splitlines()
        if line.startswith("| `mcp_codegen.runtime._serve.server`")
    )
    edited = committed.replace(row, row.replace("| server |", "| parent |"))
    assert edited != committed
    assert gen.generated(edited) == committed


def copy_package(tmp_path: Path) -> Path:
    shutil.copytree(
        REPO / "mcp_codegen", tmp_path / "mcp_codegen", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


def test_a_module_override_and_the_package_default(tmp_path):
    root = copy_package(tmp_path)
    scan = root / "mcp_codegen" / "_generator" / "scan"
    (scan / "extra.py").write_text('"""A new scanner helper."""\n')
    (scan / "other.py").write_text('"""Runs elsewhere.\n\nRuns in: parent, server.\n"""\n')
    places = {m.dotted: m.runs_in for m in gen.modules(root)}
    assert places["mcp_codegen._generator.scan.extra"] == "worker"  # the package's default
    assert places["mcp_codegen._generator.scan.other"] == "parent, server"


def test_a_package_must_say_where_it_runs(tmp_path):
    root = copy_package(tmp_path)
    new = root / "mcp_codegen" / "_generator" / "newstage"
    new.mkdir()
    (new / "__init__.py").write_text('"""A new stage."""\n')
    with pytest.raises(gen.MapError, match=r"newstage/__init__.py: every package says where"):
        gen.modules(root)


def test_an_unknown_place_is_refused(tmp_path):
    root = copy_package(tmp_path)
    (root / "mcp_codegen" / "_shared" / "odd.py").write_text('"""Odd.\n\nRuns in: browser.\n"""\n')
    with pytest.raises(gen.MapError, match=r"odd.py: 'Runs in:' names browser"):
        gen.modules(root)


def test_import_rules_list_every_contract():
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
    rules = gen.import_rules()
    prose = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    for contract in contracts:
        assert f"| `{contract['id']}` | {contract['type']} | {contract['name']} |" in rules
        assert f"- **{contract['id']}**: " in prose, (
            f"explain contract {contract['id']} in one line"
        )


#: The modules each kind of process starts from (their imports, lazy ones included, follow).
ENTRY_POINTS = {
    "worker": [
        "mcp_codegen._generator.workers.child",
        "mcp_codegen._generator.scan.files",
        "mcp_codegen._generator.schema.describe",
        "mcp_codegen._generator.inspection.resolve",
        "mcp_codegen._generator.flavors.mcp",
        "mcp_codegen._generator.flavors.fastmcp",
        "mcp_codegen._generator.flavors.factories",
    ],
    "server": [
        "mcp_codegen.runtime._serve.server",
        "mcp_codegen.runtime._call.invoke",
        "mcp_codegen.runtime._call.prepare",
        "mcp_codegen.runtime._call.framework_results",
        "mcp_codegen.runtime._hook.install",
        "mcp_codegen.runtime._hook.frameworks",
        "mcp_codegen.runtime._hook.fastmcp_tool",
        "mcp_codegen.runtime._stdio.fastpath",
        "mcp_codegen.runtime._stdio.transport",
        "mcp_codegen.runtime._load.profiled",
    ],
    "parent": [
        "mcp_codegen._cli.commands",
        "mcp_codegen._generator.pipeline",
        "mcp_codegen._generator.assemble.finalize",
        "mcp_codegen._generator.render.modules",
        "mcp_codegen._generator.write.output",
        "mcp_codegen._generator.workers.pool",
        "mcp_codegen._generator.lint",
        "mcp_codegen._generator.hash_seeds",
        "mcp_codegen._cli.diff_command",
    ],
}


@pytest.mark.process
@pytest.mark.parametrize("place", sorted(ENTRY_POINTS))
def test_the_map_says_where_each_module_is_imported(place):
    """A module a process imports is declared to run there (or "any"), packages aside."""
    script = (
        "import sys\n"
        f"for name in {ENTRY_POINTS[place]!r}: __import__(name)\n"
        "print('\\n'.join(n for n in sys.modules if n.startswith('mcp_codegen')))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True
    )
    mapped = {module.dotted: module for module in gen.modules()}
    undeclared = [
        name
        for name in completed.stdout.split()
        if not mapped[name].path.endswith("__init__.py")
        and not {place, "any"} & set(mapped[name].runs_in.split(", "))
    ]
    assert undeclared == [], f"imported in the {place} process but not declared to run there"
