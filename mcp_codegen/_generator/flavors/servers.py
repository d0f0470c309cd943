"""What each server object says at ``initialize``, per protocol revision (flavors "mcp"/"fastmcp").

Runs as ``python -m mcp_codegen._generator.flavors.servers`` (the probe), beside user code: it imports
the tool modules in source order, finds the server objects they reach that a module binds at
its top level (``mcp = MCPServer(...)``), and drives each one's own JSON-RPC session in memory:
``initialize`` at every handshake revision, then ``tools/list``. Its lifespan is not entered
(the SDK answers both without it), so no user start-up code runs. The answers are printed as JSON
on the original stdout; the parent (``mcp_codegen._generator.workers.server_records``) runs the probe
twice and keeps only what both runs agree on.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_codegen._generator.constants.bytecode_semantics import compile_as_bytecode
from mcp_codegen._generator.flavors.import_graph import ImportGraph
from mcp_codegen._generator.inspection.output_guard import guard_output_package
from mcp_codegen._registration.factory_calls import is_factory_call, parse_factory_call
from mcp_codegen._registration.providers import server_tool_providers
from mcp_codegen._registration.served import UnsupportedServer, framework_of, opening_answers
from mcp_codegen._shared.format import source_digest

if TYPE_CHECKING:
    from collections.abc import Callable

#: The revisions an ``initialize`` handshake can negotiate (SDK 2.x); 2026-07-28 has none.
HANDSHAKE_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: Frameworks whose server objects are recorded (``mcp_codegen._registration.served.framework_of``).
RECORDED_FRAMEWORKS = ("mcp", "fastmcp")


class Unrecordable(ValueError):
    """Why a run target or factory call gets no record, in mcp-codegen's own words."""


def find_servers(
    root: Path, output: Path, source_dirs: tuple[Path, ...] = ()
) -> list[tuple[str, str, int, Any]]:
    """``(object path, source path, line, server)`` of each server object a project module
    (under ``root``, outside any ``site-packages``, or under one of ``source_dirs``) binds at
    its top level, sorted by object path; each object once (the first binding, by object path).
    The source path is relative to ``root``, or else to the module's import root."""
    found: dict[int, tuple[str, str, int, Any]] = {}
    for name, module in sorted(sys.modules.items()):
        resolved = is_project_module(name, module, root, output, source_dirs)
        if resolved is None:
            continue
        assigned: dict[str, int] | None = None
        for attribute, value in sorted(vars(module).items()):
            try:
                framework = framework_of(value)
            except UnsupportedServer:
                continue
            if framework not in RECORDED_FRAMEWORKS or id(value) in found:
                continue
            if assigned is None:
                assigned = top_level_assignments(resolved)
            if attribute in assigned:
                relative = _source_path(root, resolved, name)
                found[id(value)] = (f"{name}:{attribute}", relative, assigned[attribute], value)
    return sorted(found.values(), key=lambda item: item[0])


def _source_path(root: Path, resolved: Path, module: str) -> str:
    """Never an absolute path in the tree: relative to ``root``, or outside the project the
    module's own path under its import root."""
    if resolved.is_relative_to(root):
        return resolved.relative_to(root).as_posix()
    return "/".join(module.split(".")) + (
        "/__init__.py" if resolved.name == "__init__.py" else ".py"
    )


def _factory_server(text: str, root: Path) -> tuple[str, str, int, Any]:
    """The record of a factory call (config ``factories``, or a ``run_targets`` entry such as
    ``pkg.server:create_server(repository=None)``): the server it returns, keyed by the call's
    normalised text (what ``mcp-codegen run`` is given) and placed at the factory's ``def``."""
    call = parse_factory_call(text)
    server = call.call()
    if not _is_server(server):
        raise Unrecordable(
            f"it returned {type(server).__name__}, not an MCPServer or FastMCP server"
        )
    function: Any = sys.modules[call.module]
    for part in call.qualname.split("."):
        function = getattr(function, part)
    function = inspect.unwrap(function)
    code = getattr(function, "__code__", None)
    path = Path(inspect.getsourcefile(function) or sys.modules[call.module].__file__ or "")
    module = getattr(function, "__module__", None) or call.module
    line = code.co_firstlineno if code is not None else 0
    return call.target, _source_path(root, path.resolve(), module), line, server


def _target_server(
    target: str, found: list[tuple[str, str, int, Any]], root: Path, functions: set[str]
) -> list[Any]:
    """The record of a configured run target (``run_targets``): the server object it names, or
    for a ``module:function`` target (added to ``functions``: it may import and register more
    when it runs) the one server its module binds at top level."""
    module_name, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    try:
        framework_of(value)
        server = value
    except UnsupportedServer:
        module = sys.modules[module_name]
        # bound by an assignment there: a server the module only imports (to mount it, say)
        # is another module's
        path = getattr(module, "__file__", None)
        own = (
            top_level_assignments(Path(path))
            if isinstance(path, str) and path.endswith(".py")
            else None
        )
        candidates = {
            id(v): v
            for name, v in vars(module).items()
            if (own is None or name in own) and _is_server(v)
        }
        if not candidates:  # binds none itself: the one server it imports is what it runs
            candidates = {id(v): v for v in vars(module).values() if _is_server(v)}
        if not candidates:
            raise Unrecordable(
                f"{module_name} binds no server object at top level, so {attribute}() must "
                f'build it when it runs: list the call, "{target}()", in run_targets instead'
            ) from None
        if len(candidates) != 1:
            raise Unrecordable(
                f"{module_name} binds {len(candidates)} server objects at top level; name one as "
                "module:object"
            ) from None
        server = next(iter(candidates.values()))
        functions.add(target)
    for name, source, line, known in found:
        if known is server:  # recorded already under the target's own name: once is enough
            return [] if name == target else [(target, source, line, server)]
    # Bound in a module outside the project and `sources` (an installed package whose tools
    # directory is the source): the run target names that module itself.
    module = sys.modules[module_name]
    path = getattr(module, "__file__", None)
    if isinstance(path, str) and path.endswith(".py"):
        resolved = Path(path).resolve()
        assigned = top_level_assignments(resolved)
        for name, value in sorted(vars(module).items()):
            if value is server and name in assigned:
                return [(target, _source_path(root, resolved, module_name), assigned[name], server)]
    raise Unrecordable("the server it starts is not bound at the top level of a project module")


def _is_server(value: Any) -> bool:
    try:
        return framework_of(value) in RECORDED_FRAMEWORKS
    except UnsupportedServer:
        return False


def is_project_module(
    name: str, module: Any, root: Path, output: Path, source_dirs: tuple[Path, ...]
) -> Path | None:
    """The resolved file of ``module`` when it is one of the project's: under ``root`` outside
    any ``site-packages``, or under one of ``source_dirs``; never the output or ``__main__``."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return None
    resolved = Path(path).resolve()
    in_root = resolved.is_relative_to(root) and "site-packages" not in resolved.parts
    in_sources = any(resolved.is_relative_to(d) for d in source_dirs)
    if not (in_root or in_sources) or resolved.is_relative_to(output) or name == "__main__":
        return None
    return resolved


def top_level_assignments(path: Path) -> dict[str, int]:
    """Names a module assigns at its top level (not imports), with the line of the first."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    lines: dict[str, int] = {}
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else []
        )
        for target in targets:
            if isinstance(target, ast.Name):
                lines.setdefault(target.id, node.lineno)
    return lines


async def server_record(server: Any) -> dict[str, Any]:
    """``{"framework", "initialize": {revision: result}, "tools": [tool dicts] | None,
    "providers"}`` for one server, from its own JSON-RPC stream; ``tools`` is None when the
    listing has more than one page (the fast path answers a single page); ``providers``: the
    kinds of its providers that build tools no registration makes."""
    framework = framework_of(server)
    initialize: dict[str, Any] = {}
    tools: list[dict[str, Any]] | None = None
    for revision in HANDSHAKE_REVISIONS:
        listing = revision == "2025-11-25"
        try:
            result, pages = await opening_answers(server, revision, listing=listing)
        except Exception:
            if not listing:
                raise
            # A listing that reads the lifespan's state: the listing once more inside the
            # lifespan, as its stdio run enters it. Initialize stays the answer given outside
            # it, like every other revision's: only the listing needed the lifespan.
            result, _ = await opening_answers(server, revision, listing=False)
            _, pages = await opening_answers(server, revision, listing=True, lifespan=True)
        initialize[revision] = result
        if pages is not None:
            tools = pages[0]["tools"] if len(pages) == 1 else None
    # tools no registration makes: the build reports where they are attached (omissions)
    providers = server_tool_providers(server)
    return {
        "framework": framework,
        "initialize": initialize,
        "tools": tools,
        "providers": providers,
    }


def _records(
    found: list[tuple[str, str, int, Any]], imports: Callable[[str], list[list[str]]]
) -> list[dict[str, Any]]:
    import anyio  # comes only with a framework (mcp, fastmcp): `init` imports this module too

    servers = []
    for object_path, source, line, server in found:
        entry: dict[str, Any] = {"object": object_path, "source": source, "line": line}
        entry["imports"] = imports(object_path.partition(":")[0])
        try:
            entry.update(anyio.run(server_record, server))
        except Exception as exc:
            entry["problem"] = f"{type(exc).__name__}: {exc}"
        servers.append(entry)
    return servers


def reached_sources(
    graph: ImportGraph, module: str, root: Path, output: Path, source_dirs: tuple[Path, ...]
) -> list[list[str]]:
    """``[[module, SOURCE_SHA256], ...]`` of the project modules importing ``module`` runs (the
    module itself always, when it is a ``.py`` file), sorted: what ``mcp-codegen run`` checks
    before its first answer, and which tool modules a run target registers."""
    found = []
    for name in sorted(graph.reached(module)):
        loaded = sys.modules.get(name)
        path = getattr(loaded, "__file__", None)
        if name != module and is_project_module(name, loaded, root, output, source_dirs) is None:
            continue
        if isinstance(path, str) and path.endswith(".py"):
            found.append([name, source_digest(Path(path).read_bytes())])
    return found


def import_the_sdk() -> None:
    """The MCP SDK, imported while the probe waits for its settings (the build starts it with its
    workers and sends them once the scans are in): ~1 s off the build's critical path. Every
    project of a framework flavor imports it (fastmcp does too), and importing a library first
    changes nothing its modules do; a project's own ``mcp`` (user code) is left to its import."""
    if any(os.path.exists(name) for name in ("mcp", "mcp.py")):  # the working directory's
        return
    with contextlib.suppress(Exception):  # not installed, or broken: the user's import says so
        importlib.import_module("mcp")


def _raised(exc: BaseException) -> str:
    """What went wrong: our own reason as it is, else the exception user code raised."""
    return str(exc) if isinstance(exc, Unrecordable) else f"{type(exc).__name__}: {exc}"


def main() -> None:
    """The probe: settings (JSON) on stdin; ``{"servers": [...], "problems": [...],
    "target_problems": {target: problem}, "imported": [[module, file], ...]}`` on stdout
    (``problems``: no record can be trusted; ``target_problems``: only that run target's or
    factory call's)."""
    # No bytecode written into the user's tree (the probes' own business); the modules run the
    # code their bytecode holds, .pyc or not, as in the workers.
    sys.dont_write_bytecode = True
    compile_as_bytecode()
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever user code prints goes to stderr
    import_the_sdk()
    settings = json.loads(sys.stdin.read())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    graph = ImportGraph()
    graph.install()  # before any user import: what each run target's own import reaches
    for entry in reversed(settings["sys_path"]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    root, output = Path(settings["root"]).resolve(), Path(settings["output"]).resolve()
    guard_output_package(output)
    problems: list[str] = []
    for module in settings["modules"]:
        try:
            importlib.import_module(module)
        except BaseException as exc:  # user code may raise anything
            problems.append(f"importing {module} raised {type(exc).__name__}: {exc}")
    failed: dict[str, str] = {}  # run target or factory call -> why it has no record
    for target in [*settings.get("targets", ()), *settings.get("factories", ())]:
        try:
            importlib.import_module(target.partition(":")[0])
        except BaseException as exc:  # user code may raise anything
            failed[target] = f"importing {target.partition(':')[0]} raised {_raised(exc)}"
    source_dirs = tuple(Path(d).resolve() for d in settings.get("source_dirs", ()))
    found = find_servers(root, output, source_dirs)

    def imports(module: str) -> list[list[str]]:
        return reached_sources(graph, module, root, output, source_dirs)

    calls = [t for t in settings.get("targets", ()) if is_factory_call(t)]
    functions: set[str] = set()
    for target in settings.get("targets", ()):
        if is_factory_call(target) or target in failed:
            continue
        try:
            found.extend(_target_server(target, found, root, functions))
        except BaseException as exc:  # user code may raise anything
            failed[target] = _raised(exc)
    # the module-level servers as importing their modules leaves them, before any factory
    # runs (a registration function the factory calls must not show in their records)
    servers = _records(found, imports)
    for server in servers:
        server["function"] = server["object"] in functions
    built: dict[str, tuple[str, str, int, Any]] = {}
    for text in dict.fromkeys([*settings.get("factories", ()), *calls]):
        if text in failed:
            continue
        try:
            entry = _factory_server(text, root)
            built.setdefault(entry[0], entry)
        except BaseException as exc:  # user code may raise anything
            failed[text] = _raised(exc)
    # each call's own server, keyed by the call (also when it returns a module-level server)
    servers.extend(_records([built[key] for key in sorted(built)], imports))
    # what the records depend on, for the build cache (a run target's module, its imports)
    imported = sorted(
        (name, path)
        for name, module in list(sys.modules.items())
        if isinstance(path := getattr(module, "__file__", None), str)
    )
    answer = {"servers": servers, "problems": problems, "target_problems": failed}
    json.dump({**answer, "imported": imported}, results)
    results.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # user threads and atexit hooks must not hold the build up


if __name__ == "__main__":
    main()
