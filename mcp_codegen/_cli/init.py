"""``mcp-codegen init``: find the servers of a project and write its ``[tool.mcp-codegen]``.

The project's files are read by the generator's own scanner (decorated tools, ``add_tool``
calls, tools inside factories and registration functions); each tool's server is then followed
to where it is created: a module-level object (a ``run_targets`` entry), a function that builds
and returns one (a ``factories`` entry, ``mcp_codegen._generator.scan.factory_entry``), or a
registration function's parameter (the server passed where the function is called).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.constants.module_scope import Enclosing
from mcp_codegen._generator.discover import module_name_for
from mcp_codegen._generator.flavors.servers import top_level_assignments
from mcp_codegen._generator.model import ScannedModule
from mcp_codegen._generator.scan.factory_entry import (
    FactoryEntry,
    call_sites,
    project_files,
    suggest_factory_entry,
)
from mcp_codegen._generator.scan.files import scan_file
from mcp_codegen._shared.diagnostics import CodegenError, Diagnostic
from mcp_codegen._shared.toml_positions import header_position, parse_error_position

TABLE = "[tool.mcp-codegen]"
#: Directories init reads no tools from (besides environments and caches): tests, the
#: generated tree, build output.
_SKIPPED = frozenset({"tests", "test", "generated", "build", "dist"})
#: The module prefixes a server's framework is read from (flavor).
_FLAVORS = (("mcp.server.mcpserver", "mcp"), ("mcp.server.fastmcp", "mcp"), ("fastmcp", "fastmcp"))


@dataclass
class Found:
    """What init found in a project."""

    sources: set[str] = field(default_factory=set)
    run_targets: set[str] = field(default_factory=set)
    factories: dict[str, FactoryEntry] = field(default_factory=dict)
    flavors: list[str] = field(default_factory=list)
    import_roots: set[str] = field(default_factory=set)
    tools: int = 0


def find_servers(root: Path) -> Found:
    """Scan every project file and follow each tool to its server."""
    config = Config(root=root, config_file=root / "pyproject.toml", sources=(root,), output=root)
    found = Found()
    for path in project_files(root, _SKIPPED):
        scanned = scan_file(path, config)
        if scanned is None or not scanned.tools:
            continue
        found.tools += len(scanned.tools)
        _add_source(found, root, scanned)
        tree = ast.parse(Path(scanned.path).read_bytes())
        for tool in scanned.tools:
            _follow(found, root, scanned, tree, tool.qualname, tool.decorator)
    found.run_targets = {_runner(root, target) for target in found.run_targets}
    return found


def _runner(root: Path, target: str) -> str:
    """The module that runs the server ``target`` names (``<name>.run(...)`` where the name
    is the server, assigned there or imported from its module): it is the one that imports
    every tool module. ``target`` itself when no module does."""
    module, _, name = target.partition(":")
    for path in project_files(root, _SKIPPED):
        data = path.read_bytes()
        if f"{name}.run(".encode() not in data:
            continue
        here = module_name_for(path)[0]
        tree = ast.parse(data)
        imported = any(
            isinstance(node, ast.ImportFrom)
            and node.module == module
            and any(a.name == name and (a.asname or a.name) == name for a in node.names)
            for node in tree.body
        )
        if imported or (here == module and name in top_level_assignments(path)):
            return f"{here}:{name}"
    return target


def _add_source(found: Found, root: Path, scanned: ScannedModule) -> None:
    """The top-level package (or single module) the tool module belongs to."""
    top = scanned.module.partition(".")[0]
    base = Path(scanned.import_root)
    path = base / top if (base / top).is_dir() else base / f"{top}.py"
    found.sources.add(path.relative_to(root).as_posix())
    found.import_roots.add(scanned.import_root)


def _follow(
    found: Found, root: Path, scanned: ScannedModule, tree: ast.Module, qualname: str, deco: str
) -> None:
    head, dot, _ = deco.partition(".")
    if not dot:  # a bare ``@tool`` (mcp_codegen.decorators): no server to follow
        return
    outer, nested, _ = qualname.partition(".<locals>.")
    if not nested:  # a module-level tool: its server is a module-level name
        _add_target(found, scanned.module, Path(scanned.path), tree, head)
        return
    function = next(
        (
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == outer
        ),
        None,
    )
    if function is None:  # a method of a class: no entry to suggest
        return
    parameters = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    parameters += [a.arg for a in function.args.kwonlyargs]
    if head in parameters:  # a registration function: the server passed where it is called
        index = parameters.index(head)
        for site, call in call_sites(scanned.module, outer, root, tree, Path(scanned.path)):
            argument = _argument(call, index, head)
            if isinstance(argument, ast.Name):
                site_path = site if site is not None else Path(scanned.path)
                site_tree = ast.parse(site_path.read_bytes())
                _add_target(found, _module_of(site, scanned), site_path, site_tree, argument.id)
        return
    if head in Enclosing.of(function).local_names:  # a factory: the server is its own local
        entry = suggest_factory_entry(
            scanned.module, function, root, tree=tree, path=Path(scanned.path)
        )
        found.factories.setdefault(f"{scanned.module}:{outer}", entry)
        _add_flavor(found, tree)
        return
    _add_target(
        found, scanned.module, Path(scanned.path), tree, head
    )  # a module-level server used in a function


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    if index < len(call.args):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _module_of(site: Path | None, scanned: ScannedModule) -> str:
    if site is None:
        return scanned.module
    return module_name_for(site)[0]


def _add_target(found: Found, module: str, path: Path, tree: ast.Module, name: str) -> None:
    """``module:name`` when ``name`` is assigned at the module's top level, or where it is
    imported from."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    found.run_targets.add(f"{node.module}:{alias.name}")
                    _add_imported_flavor(found, path, module, node.module)
                    return
    if name in top_level_assignments(path):
        found.run_targets.add(f"{module}:{name}")
        _add_flavor(found, tree)


def _add_imported_flavor(found: Found, path: Path, module: str, imported: str) -> None:
    """The flavor of ``imported`` (a module of the same project as ``module`` at ``path``)."""
    base = (
        path.parents[module.count(".")]
        if path.name != "__init__.py"
        else path.parents[module.count(".") + 1]
    )
    for candidate in (
        base.joinpath(*imported.split(".")).with_suffix(".py"),
        base.joinpath(*imported.split("."), "__init__.py"),
    ):
        if candidate.is_file():
            _add_flavor(found, ast.parse(candidate.read_bytes()))
            return


def _add_flavor(found: Found, tree: ast.Module) -> None:
    for node in ast.walk(tree):
        names = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level == 0
            else [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        for name in names:
            for prefix, flavor in _FLAVORS:
                if name == prefix or name.startswith(prefix + "."):
                    found.flavors.append(flavor)


def render_table(found: Found) -> str:
    """The ``[tool.mcp-codegen]`` table for what was found (TOML, keys in a fixed order)."""
    flavor = found.flavors[0] if found.flavors else "clean"
    lines = [
        TABLE,
        "# written by `mcp-codegen init`; every key: docs/configuration.md",
        f"sources = {_toml_list(sorted(found.sources))}",
        f"flavor = {json.dumps(flavor)}",
    ]
    if found.run_targets:
        lines.append("# what `mcp-codegen run` starts (its answers are recorded for the fast path)")
        lines.append(f"run_targets = {_toml_list(sorted(found.run_targets))}")
    entries = [found.factories[key] for key in sorted(found.factories)]
    complete = [entry.entry for entry in entries if entry.complete]
    if complete:
        lines.append(f"factories = {_toml_list(complete)}")
    for entry in (entry for entry in entries if not entry.complete):
        lines.append(
            f"# TO FILL IN: give {', '.join(entry.missing)} a literal value, then add this call "
            "to `factories` (its tools are not generated until then):"
        )
        lines.append(f"#   {json.dumps(entry.entry)}")
    return "\n".join(lines) + "\n"


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(value, ensure_ascii=False) for value in values) + "]"


def write_table(root: Path, table: str, *, force: bool) -> Path:
    """Append ``table`` to ``pyproject.toml`` (or write ``mcp-codegen.toml`` when there is
    none), leaving every other byte as it was; replace an existing table only with ``force``."""
    path = root / "pyproject.toml"
    if not path.is_file():
        path = root / "mcp-codegen.toml"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    try:
        existing = "mcp-codegen" in tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError as exc:
        line, column = parse_error_position(str(exc))
        message = f"cannot parse TOML ({exc}); fix it, then run init"
        raise CodegenError([Diagnostic(str(path), line, column, message)]) from None
    if existing and not force:
        line, column = header_position(text, TABLE.strip("[]"))
        raise CodegenError(
            [
                Diagnostic(
                    str(path),
                    line,
                    column,
                    f"{TABLE} already exists; init does not overwrite it: edit it, or run "
                    "`mcp-codegen init --force` to replace that table (the rest of the file "
                    "is kept)",
                )
            ]
        )
    if existing:
        text = _without_table(text)
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + ("\n" if text else "") + table, encoding="utf-8")
    return path


def _without_table(text: str) -> str:
    """``text`` without the lines of ``[tool.mcp-codegen]`` (its sub-tables are kept)."""
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped == TABLE
        if not inside:
            kept.append(line)
    return "".join(kept).rstrip("\n") + "\n" if kept else ""


def client_config(found: Found, root: Path, output: Path) -> str:
    """The ``mcpServers`` entries that start each run target with ``mcp-codegen run``, for a
    client that starts servers from any directory; then the ``uvx`` form."""
    targets = sorted(found.run_targets) + [
        found.factories[k].entry for k in sorted(found.factories) if found.factories[k].complete
    ]
    prefix = ["--generated", str(output)]
    command = Path(sys.executable).with_name("mcp-codegen")
    env = _pythonpath(found)
    servers: dict[str, object] = {}
    uvx: dict[str, object] = {}
    for target in targets:
        name = _server_key(target, servers)
        entry: dict[str, object] = {
            "command": str(command) if command.is_file() else "mcp-codegen",
            "args": ["run", *prefix, target],
        }
        if env:
            entry["env"] = env
        servers[name] = entry
        uvx[name] = {
            "command": "uvx",
            "args": [
                "--from",
                "mcp-schema-codegen[server]",
                "--with-editable",
                str(root),
                "mcp-codegen",
                "run",
                *prefix,
                target,
            ],
        }
    if not targets:
        return ""
    return (
        "Add the server to your MCP client's configuration (mcpServers):\n"
        + json.dumps({"mcpServers": servers}, indent=2)
        + "\n\nor, with uv (the project's own dependencies installed from its directory):\n"
        + json.dumps({"mcpServers": uvx}, indent=2)
        + "\n"
    )


def _server_key(target: str, taken: dict[str, object]) -> str:
    base = target.partition(":")[0].partition(".")[0]
    name, number = base, 2
    while name in taken:
        name, number = f"{base}-{number}", number + 1
    return name


def _pythonpath(found: Found) -> dict[str, str]:
    """``PYTHONPATH`` for a client that starts the server in another directory, unless the
    modules are importable from there already (the project is installed)."""
    tops = sorted({t.partition(":")[0].partition(".")[0] for t in found.run_targets})
    tops += sorted({k.partition(":")[0].partition(".")[0] for k in found.factories})
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = (
        "import importlib.util, sys; sys.exit(any(importlib.util.find_spec(n) is None "
        "for n in sys.argv[1:]))"
    )
    installed = (
        subprocess.run(
            [sys.executable, "-c", script, *tops], cwd="/", env=environment, check=False
        ).returncode
        == 0
    )
    if installed or not tops:
        return {}
    return {"PYTHONPATH": os.pathsep.join(sorted(found.import_roots))}
