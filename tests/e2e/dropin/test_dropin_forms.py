"""Registration forms seen in published servers (issue 35, item 3).

Fixtures: tests/fixtures/published/forms, one module per form and framework. Oracles: each
server's own tools/list through its framework's client, and ``mcp-codegen run --strict`` of the
same server (every registered tool found in the generated tree) listing exactly the same. A form
whose value is only known at run time is an exact ``path:line:col`` error instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import generate
from tests.helpers.corpus import (
    FIXTURES,
    SharedBuilds,
    assert_same_tools,
    build_flavor,
    fastmcp_client_tools,
    sdk_client_tools,
    write_config,
)
from tests.helpers.json_text import unordered_json
from tests.helpers.project import REPO
from tests.helpers.servers import QUIET_FASTMCP, server_env
from tests.runtime.run.run_support import INITIALIZED, exchange, initialize, request, run_command

pytestmark = [pytest.mark.process, pytest.mark.slow]

SOURCE = FIXTURES / "published" / "forms"
PACKAGE = "published.forms"
LISTERS: dict[str, Callable[[Any], dict[str, dict[str, Any]]]] = {
    "mcp": sdk_client_tools,
    "fastmcp": fastmcp_client_tools,
}
TYPES = ["get", "search", "set", "type", "upload", "weather"]
#: (module, server attribute, flavor, the tool names its framework lists: checked by hand
#: against the fixture, so a listing that loses a tool fails too)
SERVERS = [
    ("a_register_fastmcp", "mcp", "fastmcp", ["get_issue", "search_issues", "whoami"]),
    ("a_register_sdk2", "mcp", "mcp", ["get_issue", "search_issues", "whoami"]),
    ("b_subclass_fastmcp", "mcp", "fastmcp", ["grip", "move"]),
    ("b_subclass_fastmcp", "app", "fastmcp", ["query"]),
    ("b_subclass_sdk2", "mcp", "mcp", ["grip", "move"]),
    ("b_subclass_sdk2", "app", "mcp", ["query"]),
    # form (c): tools removed at import (fastmcp ``disable(names=/tags=)``,
    # ``local_provider.remove_tool``, the SDK's ``remove_tool``) are generated unlisted
    ("c_disable_fastmcp", "mcp", "fastmcp", ["read_file"]),
    ("c_disable_sdk2", "mcp", "mcp", ["read_file"]),
    ("f_handler_class_fastmcp", "mcp", "fastmcp", ["add_note", "delete_note", "get_note"]),
    ("f_handler_class_sdk2", "mcp", "mcp", ["add_note", "delete_note", "get_note"]),
    ("h_types_fastmcp", "mcp", "fastmcp", TYPES),
    # form (k): ``mcp.tool(fn, name=...)``, also wrapped and on ``self`` in a subclass's method
    ("k_direct_fastmcp", "mcp", "fastmcp", ["count", "search-find", "search-store"]),
    ("h_types_sdk2", "mcp", "mcp", TYPES),
]
#: form (i): a top-level package named ``src``, tool modules imported by a ``pkgutil`` loop and
#: circularly at the bottom of the server module
LAYOUT = FIXTURES / "published" / "forms_layout"
LAYOUT_SERVER = "src.server"
SERVERS.append((LAYOUT_SERVER, "mcp", "fastmcp", ["add_note", "list_files", "shutdown", "version"]))
if str(LAYOUT) not in sys.path:
    sys.path.insert(0, str(LAYOUT))
IDS = [f"{module}:{attribute}" for module, attribute, _, _ in SERVERS]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """Each module is generated once per flavor and entry; the tests that assert on the same
    build (its listing, the strict hook over it, its unlisted tools) read that one tree."""
    return SharedBuilds(tmp_path_factory.mktemp("forms"))


def build_server(
    builds: SharedBuilds, module: str, attribute: str, flavor: str
) -> tuple[dict, Path]:
    """Generate the module; the tools of the one server (``x-codegen.server``; none recorded for
    a registration function's parameter, in modules with one server), as served."""
    if module == LAYOUT_SERVER:
        built, output = builds.get(flavor, [LAYOUT / "src"], python_path=(REPO, LAYOUT))
        return built["wire"], output
    built, output = builds.get(flavor, [SOURCE / f"{module}.py"])
    key = f"{PACKAGE}.{module}:{attribute}"
    servers = {n: t["x-codegen"].get("server") for n, t in built["generated"].items()}
    mine = {n for n, server in servers.items() if server in (key, None)}
    return {n: t for n, t in built["wire"].items() if n in mine}, output


def dotted(module: str) -> str:
    return module if module == LAYOUT_SERVER else f"{PACKAGE}.{module}"


def theirs(module: str, attribute: str, flavor: str) -> dict[str, dict[str, Any]]:
    server = getattr(importlib.import_module(dotted(module)), attribute)
    return LISTERS[flavor](server)


@pytest.mark.parametrize(("module", "attribute", "flavor", "names"), SERVERS, ids=IDS)
def test_each_form_generates_what_the_server_lists(
    builds: SharedBuilds, module: str, attribute: str, flavor: str, names: list[str]
) -> None:
    ours, _ = build_server(builds, module, attribute, flavor)
    listed = theirs(module, attribute, flavor)
    assert sorted(listed) == names
    assert_same_tools(listed, ours)


@pytest.mark.parametrize(("module", "attribute", "flavor", "names"), SERVERS, ids=IDS)
def test_the_strict_hook_lists_the_same(
    tmp_path: Path,
    builds: SharedBuilds,
    module: str,
    attribute: str,
    flavor: str,
    names: list[str],
) -> None:
    """``mcp-codegen run --strict`` (fast path off): every tool the server registers has a
    current generated entry, and the hooked listing is the plain server's."""
    _, output = build_server(builds, module, attribute, flavor)
    answers, _, stderr = exchange(
        run_command(str(output), f"{dotted(module)}:{attribute}", "--strict", "--no-fast-path"),
        [initialize(), INITIALIZED, request(2, "tools/list")],
        {2},
        cwd=tmp_path,
        env=server_env(FIXTURES, LAYOUT, **QUIET_FASTMCP),
    )
    assert 2 in answers, stderr
    listed = {t["name"]: t for t in json.loads(answers[2])["result"]["tools"]}
    assert sorted(listed) == names
    assert unordered_json(listed) == unordered_json(theirs(module, attribute, flavor)), stderr


def errors_of(root: Path, module: str, flavor: str) -> list[str]:
    config = load_config(write_config(root, flavor, [SOURCE / f"{module}.py"]))
    result, _ = generate(config, use_cache=False)
    assert not (root / "generated").exists()
    return [str(error) for error in result.errors]


def test_a_description_built_from_a_registration_parameter_is_a_clear_error(
    tmp_path: Path,
) -> None:
    """``description=f"... {client.base_url}"`` in ``register_repo_tools(mcp, client)``: the
    client exists only at run time, so the error names it at the argument, never a guess."""
    path = SOURCE / "a_runtime_description.py"
    assert errors_of(tmp_path, "a_runtime_description", "fastmcp") == [
        f"{path}:11:55: decorator argument description= cannot be known at build time: `client` "
        "is a parameter of register_repo_tools(), known only when it is called; write the value "
        "literally or as a module-level constant (the generator calls register_repo_tools() "
        "with the server and stand-ins for its other parameters, so their values are unknown)"
    ]


def test_a_name_from_the_environment_is_an_error_naming_the_variable(tmp_path: Path) -> None:
    """``name=tool_name("search")`` where the helper reads ``FORMS_TOOL_PREFIX``, and
    ``PREFIX = os.getenv("FORMS_TOOL_PREFIX", ...)``: each error names the variable."""
    path = SOURCE / "g_env_prefix_fastmcp.py"
    assert errors_of(tmp_path, "g_env_prefix_fastmcp", "fastmcp") == [
        f"{path}:18:16: decorator argument name= cannot be known at build time: "
        "`tool_name(...)` reads the environment variable FORMS_TOOL_PREFIX (known only at run "
        'time); write the value literally (e.g. name="search") or as a module-level constant '
        "built from literals",
        f"{path}:27:19: decorator argument name= cannot be known at build time: `PREFIX` is a "
        f"module-level constant ({path}:24:10), but its value "
        "`os.getenv('FORMS_TOOL_PREFIX', 'acme')` is not constant: "
        "`os.getenv('FORMS_TOOL_PREFIX')` reads the environment, which is known only at run "
        'time; write the value literally (e.g. name="search") or as a module-level constant '
        "built from literals",
    ]


#: form (e): (module, flavor); a registry decorator collects functions, and the factory
#: ``create_server(False)`` (also called at the bottom of the module for its ``mcp``) registers
#: each with ``mcp.tool(name=..., description=..., **kwargs)(errors_as_text(logged(fn)))``
#: (fastmcp: ``wrapped = mcp.tool(...)(wrapped)``, the wrappers applied the line before)
#: the SDK 1.x variant needs the real 1.x ``FastMCP`` (``nox -s dropin_sdk1``), the 2.x one 2.x
SDK1 = pytest.mark.skipif(
    importlib.util.find_spec("mcp.server.mcpserver") is not None, reason="needs mcp<2"
)
SDK2 = pytest.mark.skipif(
    importlib.util.find_spec("mcp.server.mcpserver") is None, reason="needs mcp>=2"
)
REGISTRY = [
    ("e_registry_fastmcp", "fastmcp"),
    pytest.param("e_registry_sdk2", "mcp", marks=SDK2),
    pytest.param("e_registry_sdk1", "mcp", marks=SDK1),
]
REGISTRY_ENTRY = f'factories = ["{PACKAGE}.{{module}}:create_server(False)"]'
#: the loop's registration per flavor, and the columns of its three computed options: the SDK
#: fixtures call it as a statement; the fastmcp one assigns its result, as mcpforunityserver does
REGISTRY_CALLS = {
    "mcp": (
        "        mcp.tool(name=name, description=description, **kwargs)(errors_as_text(logged(fn)))",
        (23, 41, 54),
    ),
    "fastmcp": (
        "        wrapped = mcp.tool(name=name, description=description, **kwargs)(wrapped)",
        (33, 51, 64),
    ),
}


def printed_entry(errors: list[str]) -> str:
    """The one ``factories = ["..."]`` entry the errors print (each prints the same)."""
    import re

    entries = {
        found.group(1) for e in errors if (found := re.search(r'(factories = \["[^"]+"\])', e))
    }
    assert len(entries) == 1 and len(errors) >= 1, errors
    return entries.pop()


@pytest.mark.parametrize(("module", "flavor"), REGISTRY)
def test_a_registry_loop_of_wrapped_functions_prints_an_entry_that_works(
    tmp_path: Path, builds: SharedBuilds, module: str, flavor: str
) -> None:
    """Form (e): without the entry, each option the loop computes is an error at its argument
    that prints the ``factories`` entry (the module's own literal call); pasted as printed, the
    build calls the factory and generates each tool it registers at that call, wrapped as the
    framework received it, exactly as the framework lists them."""
    path = SOURCE / f"{module}.py"
    errors = errors_of(tmp_path / "before", module, flavor)
    statement, columns = REGISTRY_CALLS[flavor]
    line = 1 + path.read_text().splitlines().index(statement)
    # name=name, description=description, **kwargs
    assert [error.split(": ")[0] for error in errors] == [f"{path}:{line}:{c}" for c in columns]
    entry = printed_entry(errors)
    assert entry == REGISTRY_ENTRY.format(module=module)
    built, _ = builds.get(flavor, [path], entry + "\n")
    listed = theirs(module, "mcp", flavor)
    assert sorted(listed) == ["add", "divide"]
    assert_same_tools(listed, built["wire"])
    functions = {n: t["x-codegen"]["function"] for n, t in built["generated"].items()}
    assert functions == {n: f"{PACKAGE}.{module}:{n}" for n in ("add", "divide")}


@pytest.mark.parametrize(("module", "flavor"), REGISTRY)
def test_the_strict_hook_serves_a_registry_loop(
    tmp_path: Path, builds: SharedBuilds, module: str, flavor: str
) -> None:
    """``mcp-codegen run --strict`` of the module's own server (``mcp = create_server(False)``):
    every wrapped tool found in the tree, and the listing is the framework's own."""
    entry = REGISTRY_ENTRY.format(module=module)
    _, output = builds.get(flavor, [SOURCE / f"{module}.py"], entry + "\n")
    answers, _, stderr = exchange(
        run_command(str(output), f"{dotted(module)}:mcp", "--strict", "--no-fast-path"),
        [initialize(), INITIALIZED, request(2, "tools/list")],
        {2},
        cwd=tmp_path,
        env=server_env(FIXTURES, **QUIET_FASTMCP),
    )
    assert 2 in answers, stderr
    listed = {t["name"]: t for t in json.loads(answers[2])["result"]["tools"]}
    assert unordered_json(listed) == unordered_json(theirs(module, "mcp", flavor)), stderr


@pytest.mark.parametrize(
    ("module", "flavor", "removed"),
    [
        ("c_disable_fastmcp", "fastmcp", ["delete_file", "stat_file", "write_file"]),
        ("c_disable_sdk2", "mcp", ["write_file"]),
    ],
)
def test_a_tool_removed_at_import_is_generated_unlisted(
    builds: SharedBuilds, module: str, flavor: str, removed: list[str]
) -> None:
    """Form (c): each removed tool keeps an entry the hook finds (``x-codegen.unlisted``), and
    no listing of the tree (``serve``, ``export``, ``verify``) includes it."""
    from mcp_codegen.runtime import load_tools

    built, output = builds.get(flavor, [SOURCE / f"{module}.py"])
    unlisted = sorted(n for n, t in built["generated"].items() if t["x-codegen"].get("unlisted"))
    assert unlisted == removed
    registry = load_tools(output)
    assert list(registry.names()) == ["read_file"]
    assert [t["name"] for t in registry.list_tools()] == ["read_file"]
    assert sorted(where[0] for where, _ in registry.unlisted_locations()) == removed
    with pytest.raises(KeyError):
        registry.get_tool(removed[0])


#: form (d): (module, flavor); its server ``app`` lists these only after ``setup()`` runs
AFTER_SETUP = [("d_main_fastmcp", "fastmcp"), ("d_main_sdk2", "mcp")]
AFTER_SETUP_NAMES = ["list_notes", "read_note"]


def build_after_setup(
    builds: SharedBuilds, module: str, flavor: str, call: str = "setup()"
) -> tuple[dict, Path]:
    entry = f'factories = ["{PACKAGE}.{module}:{call}"]\n'
    return builds.get(flavor, [SOURCE / f"{module}.py"], entry)


@pytest.mark.parametrize("call", ["setup()", "main()"])
@pytest.mark.parametrize(("module", "flavor"), AFTER_SETUP)
def test_tools_registered_by_a_setup_call_generate_with_its_factories_entry(
    builds: SharedBuilds, module: str, flavor: str, call: str
) -> None:
    """Form (d): ``setup()`` loops ``app.add_tool(...)`` over ``(fn, name, description)``
    tuples of another module. With ``factories = ["...:setup()"]`` the one call site becomes
    one tool per function the server then registers, as its framework lists them. ``main()``
    (setup(), then ``app.run()``) works as the entry too: during the build call the server's
    ``run`` returns at once, and the server it was asked to run is the one built."""
    loaded = importlib.reload(importlib.import_module(dotted(module)))  # a server of its own
    assert LISTERS[flavor](loaded.app) == {}  # nothing before setup() runs
    built, _ = build_after_setup(builds, module, flavor, call)
    server = loaded.setup()
    listed = LISTERS[flavor](server)
    assert sorted(listed) == AFTER_SETUP_NAMES
    assert_same_tools(listed, built["wire"])
    functions = {n: t["x-codegen"]["function"] for n, t in built["generated"].items()}
    assert functions == {n: f"{PACKAGE}.d_tools_one:{n}" for n in AFTER_SETUP_NAMES}


@pytest.mark.parametrize("target", ["setup()", "main"])
@pytest.mark.parametrize(("module", "flavor"), AFTER_SETUP)
def test_the_strict_hook_serves_a_setup_calls_tools(
    tmp_path: Path, builds: SharedBuilds, module: str, flavor: str, target: str
) -> None:
    """``mcp-codegen run --strict`` of ``module:setup()`` (the server the call returns) and of
    ``module:main`` (which calls setup() then ``app.run()``): every tool found in the tree, and
    the listing is the framework's own after setup()."""
    _, output = build_after_setup(builds, module, flavor)
    answers, _, stderr = exchange(
        run_command(str(output), f"{dotted(module)}:{target}", "--strict", "--no-fast-path"),
        [initialize(), INITIALIZED, request(2, "tools/list")],
        {2},
        cwd=tmp_path,
        env=server_env(FIXTURES, **QUIET_FASTMCP),
    )
    assert 2 in answers, stderr
    listed = {t["name"]: t for t in json.loads(answers[2])["result"]["tools"]}
    assert sorted(listed) == AFTER_SETUP_NAMES
    loaded = importlib.reload(importlib.import_module(dotted(module)))  # a server of its own
    loaded.setup()
    assert unordered_json(listed) == unordered_json(LISTERS[flavor](loaded.app)), stderr


@pytest.mark.parametrize(("module", "flavor"), AFTER_SETUP)
def test_the_error_before_the_entry_prints_one_that_works(
    tmp_path: Path, builds: SharedBuilds, module: str, flavor: str
) -> None:
    """Without the entry, each loop variable is an error at its argument that names the
    ``factories`` entry; pasted into the configuration as printed, it generates the tools."""
    import re

    errors = errors_of(tmp_path / "before", module, flavor)
    assert len(errors) == 2
    entries = {re.search(r'(factories = \["[^"]+"\])', error).group(1) for error in errors}  # type: ignore[union-attr]
    assert entries == {f'factories = ["{PACKAGE}.{module}:setup()"]'}
    assert all("is a local variable of setup()" in error for error in errors)
    built, _ = builds.get(flavor, [SOURCE / f"{module}.py"], entries.pop() + "\n")
    loaded = importlib.reload(importlib.import_module(dotted(module)))
    assert_same_tools(LISTERS[flavor](loaded.setup()), built["wire"])


#: form (j): (server module, flavor); tool classes of other modules define closures in
#: ``register_tools(self, mcp)``, called only by the server class's registrar
TOOL_CLASSES = [("server_fastmcp", "fastmcp"), pytest.param("server_sdk2", "mcp", marks=SDK2)]
TOOL_CLASSES_DIR = SOURCE / "j_tool_classes"


@pytest.mark.parametrize(("module", "flavor"), TOOL_CLASSES)
def test_tool_classes_of_other_modules_generate_through_the_factory_entry(
    tmp_path: Path, module: str, flavor: str
) -> None:
    """The factory ``NotesServer('notes').mcp`` reaches tools defined in methods of classes that
    its module imports from other modules (each wrapped by a registrar that swaps
    ``mcp.tool``): generated as the framework lists the server the call builds."""
    dotted_server = f"{PACKAGE}.j_tool_classes.{module}"
    entry = f"factories = [\"{dotted_server}:NotesServer('notes').mcp\"]\n"
    sources = [TOOL_CLASSES_DIR / f"{module}.py", TOOL_CLASSES_DIR / "tools"]
    built, _ = build_flavor(tmp_path, flavor, sources, entry)
    server = importlib.import_module(dotted_server).NotesServer("notes").mcp
    listed = LISTERS[flavor](server)
    assert sorted(listed) == ["drop_note", "get_note", "list_notes"]
    assert_same_tools(listed, built["wire"])
