"""Issue 10's patterns against the real frameworks (tests/fixtures/published/patterns_*).

Registration functions on the module-level server and with extra parameters, decorator
arguments that are constant expressions, and a server built by a factory (config
``factories``): each generated tool must equal what the framework's own client lists for the
real server objects. The run-time-only cases must each be an exact ``file:line:col`` error.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._registration.factory_calls import parse_factory_call
from mcp_codegen._shared.diagnostics import CodegenError
from mcp_codegen._shared.reader import read_tree
from tests.helpers.corpus import (
    PUBLISHED,
    build_flavor,
    fastmcp_client_tools,
    sdk_client_tools,
    tool_differences,
)
from tests.helpers.json_text import unordered_json
from tests.helpers.project import Project

pytestmark = pytest.mark.process

#: package -> (flavor, how its framework's own client lists a server)
PATTERNS = {
    "patterns_sdk2": ("mcp", sdk_client_tools),
    "patterns_fastmcp": ("fastmcp", fastmcp_client_tools),
}
TOOL_MODULES = (
    "tools_added.py",
    "tools_constants.py",
    "tools_context.py",
    "tools_global.py",
    "tools_state.py",
    "tools_wrapped.py",
)


def factory_call(package: str) -> str:
    return f"published.{package}.factory:create_server(namespace='team_')"


@pytest.fixture(scope="module")
def patterns(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Per package: the tool modules generated on their own (``main``, the server object's
    tools) and the factory module generated with ``factories`` (``factory``)."""
    built: dict[str, dict[str, Any]] = {}
    for package, (flavor, _) in PATTERNS.items():
        folder = PUBLISHED / package
        main, main_output = build_flavor(
            tmp_path_factory.mktemp(f"{package}-main"),
            flavor,
            [folder / name for name in TOOL_MODULES],
        )
        factory, factory_output = build_flavor(
            tmp_path_factory.mktemp(f"{package}-factory"),
            flavor,
            [folder / "factory.py"],
            f'factories = ["{factory_call(package)}"]\n',
        )
        built[package] = {
            "main": main,
            "main_output": main_output,
            "factory": factory,
            "factory_output": factory_output,
        }
    return built


@pytest.mark.slow
@pytest.mark.parametrize("package", list(PATTERNS))
def test_every_pattern_tool_equals_what_the_framework_serves(
    patterns: dict[str, dict[str, Any]], package: str
) -> None:
    _, list_tools = PATTERNS[package]
    server = importlib.import_module(f"published.{package}.server").mcp
    for theirs, ours in [
        (list_tools(server), patterns[package]["main"]["wire"]),
        (
            list_tools(parse_factory_call(factory_call(package)).call()),
            patterns[package]["factory"]["wire"],
        ),
    ]:
        assert sorted(ours) == sorted(theirs)
        wrong = {
            name: tool_differences(theirs[name], ours[name])
            for name in theirs
            if unordered_json(theirs[name]) != unordered_json(ours[name])
        }
        assert not wrong, "\n".join(wrong.values())


# Where each pattern appears, and what its generated tool must record. The equality test above
# proves the values; this table proves the fixtures keep covering the patterns.
FORMS = [
    ("constant name bound to ToolAnnotations(...), imported", "cat_search", lambda t: t["annotations"]["readOnlyHint"] is True),
    ("+ of imported constants (transitively)", "cat_search", lambda t: t["x-codegen"]["function"].endswith(":search")),
    ("f-string over an imported constant", "cat_search", lambda t: t["description"] == "Search the catalogue (API v2)."),
    ("f-string over a module attribute", "cat_item", lambda t: t["x-codegen"]["function"].endswith(":get_item")),
    ("Icon(...) constant in icons=", "cat_item", lambda t: t["icons"][0]["sizes"] == ["48x48"]),
    ("dict display with ** splats", "cat_item", lambda t: t["_meta"]["ui"] == {"visibility": ["app"]}),
    ("list display with a * splat", "cat_item", lambda t: t["_meta"]["com.example/tags"][-1] == "item"),
    ("textwrap.dedent and str methods", "cat_update", lambda t: t["description"] == "Update an item of the catalogue.\n\nOnly the given fields change."),
    ("subscript of a constant dict", "cat_update", lambda t: t["_meta"]["com.example/max"] == 50),
    ("enum member's .value as name=", "catalogue_size", lambda t: t["x-codegen"]["function"].endswith(":size")),
    ("format spec and !r in an f-string", "catalogue_size", lambda t: t["description"] == "'catalogue' size, at most   50 per page."),
    ("global server, called from main()", "ping", lambda t: t["x-codegen"]["registrar"].endswith("tools_global:register_tools")),
    ("global server, called from another function", "uptime", lambda t: t["x-codegen"]["registrar_parameter"] == "mcp"),
    ("local constant of a registration function", "uptime", lambda t: t["description"] == "Server uptime in seconds."),
    ("global server, called at module level", "version", lambda t: t["x-codegen"]["registrar"].endswith(":register_on_import")),
    ("extra parameters get stand-ins", "transfer_funds", lambda t: t["x-codegen"]["registrar"].endswith("tools_state:register_account_tools")),
    ("wrapper's rewritten __doc__ is the description", "find_lemma", lambda t: t["description"] == "Limit: 3req/30s. Search lemmas by name."),
    ("wrapper's signature is the inner function's", "find_lemma", lambda t: list(t["inputSchema"]["properties"]) == ["query", "limit"]),
    ("wrapper under name=", "tagged_echo", lambda t: t["description"] == "X Echo the text."),
    ("add_tool(fn, name=..., description=constant)", "run_query", lambda t: t["description"] == "Run a read-only SELECT query." and t["x-codegen"]["function"].endswith(":run_select_query")),
    ("add_tool(fn) takes the docstring", "list_databases", lambda t: t["description"] == "List the databases."),
    ("add_tool inside a registration function", "list_tables", lambda t: t["title"] == "List tables" and t["x-codegen"]["registrar"].endswith(":register_added_tools")),
    ("server reached through an attribute (@ctx.mcp.tool())", "region", lambda t: t["x-codegen"]["registrar"].endswith("tools_context:register_context_tools") and t["x-codegen"]["registrar_parameter"] == "ctx"),
    ("wrapper inside a registration function", "find_premise", lambda t: t["description"] == "Limit: 3req/30s. Premises for a goal."),
]  # fmt: skip


@pytest.mark.parametrize("package", list(PATTERNS))
@pytest.mark.parametrize(("form", "tool", "check"), FORMS, ids=[f[0] for f in FORMS])
def test_the_fixtures_cover_each_pattern(
    patterns: dict[str, dict[str, Any]], package: str, form: str, tool: str, check: Any
) -> None:
    generated = patterns[package]["main"]["generated"][tool]
    assert check(generated), generated


@pytest.mark.parametrize("package", list(PATTERNS))
def test_factory_tools_record_the_call(patterns: dict[str, dict[str, Any]], package: str) -> None:
    generated = patterns[package]["factory"]["generated"]
    assert sorted(generated) == ["count_notes", "team_list_notes"]
    for tool in generated.values():
        private = tool["x-codegen"]
        assert private["factory"] == factory_call(package)
        assert "registrar" not in private
    assert generated["team_list_notes"]["description"] == "List the notes of team_."
    assert generated["team_list_notes"]["x-codegen"]["function"] == (
        f"published.{package}.factory:create_server.<locals>.list_notes"
    )


@pytest.mark.parametrize("package", list(PATTERNS))
def test_verify_passes_against_the_server_and_the_same_factory_call(
    patterns: dict[str, dict[str, Any]], package: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcp_codegen._generator.verify import run

    fixtures = PUBLISHED.parent
    for target, output in [
        (f"published.{package}.server:mcp", patterns[package]["main_output"]),
        (factory_call(package), patterns[package]["factory_output"]),
    ]:
        assert run(target, output, output.parent, (fixtures,), 60.0) == 0, capsys.readouterr()
        assert "generated tools equal what" in capsys.readouterr().out


def test_the_runtime_reaches_tools_of_a_registrar_on_the_global_server(
    patterns: dict[str, dict[str, Any]],
) -> None:
    """``mcp_codegen._registration.registrar.capture`` swaps the module's server for the call; a tool whose
    registrar needs state (stand-ins at build time) is refused by name when called."""
    from mcp.client import Client

    from mcp_codegen.runtime import load_tools
    from tests.runtime.runtime_support import build_server

    server = build_server(load_tools(patterns["patterns_sdk2"]["main_output"]))

    async def calls() -> list[Any]:
        async with Client(server) as client:
            return [
                await client.call_tool("echo_text", {"text": "ab", "times": 2}),
                await client.call_tool("balance", {}),
                await client.call_tool("region", {"uppercase": True}),
                await client.call_tool("find_lemma", {"query": "q", "limit": 2}),
                await client.call_tool("run_query", {"sql": "s", "limit": 1}),
                await client.call_tool("list_tables", {"database": "d"}),
            ]

    echo, balance, region, lemma, query, tables = anyio.run(calls)
    assert not echo.is_error and echo.content[0].text == "abab"
    assert echo.structured_content == {"result": "abab"}
    # ``@ctx.mcp.tool()``, a functools.wraps wrapper, and two ``add_tool`` registrations
    assert region.structured_content == {"result": "EU"}
    assert lemma.structured_content == {"result": ["q", "q"]}
    assert query.structured_content == {"result": [{"sql": "s"}]}
    assert tables.structured_content == {"result": ["d"]}
    output = patterns["patterns_sdk2"]["main_output"]
    assert balance.is_error
    assert balance.content[0].text == (
        "Tool 'balance': its registration function "
        "published.patterns_sdk2.tools_state:register_account_tools also needs store, "
        "get_current_id, validate, is_positive, which only your own server passes it (the "
        "generator listed the tool with stand-ins for them), so this server cannot call it. "
        "Serve your own server with its framework and these generated schemas instead: "
        f"`mcp-codegen run --generated {output} MODULE:SERVER`, or "
        f"`mcp_codegen.runtime.use_generated('{output}')` at the top of your server module (README, "
        '"Keep your server"); or give those parameters defaults'
    )


#: Calls of the factory tools: what they answer depends on the recorded factory arguments.
FACTORY_CALLS = [
    ("team_list_notes", {}),
    ("team_list_notes", {"limit": 1}),
    ("count_notes", {}),
    ("team_list_notes", {"limit": "many"}),  # refused by the input schema on both sides
]


@pytest.mark.parametrize("package", list(PATTERNS))
def test_the_runtime_calls_factory_tools_as_the_factorys_server_answers(
    patterns: dict[str, dict[str, Any]], package: str
) -> None:
    """``mcp-codegen serve`` of a factory's tools: the runtime calls the recorded factory once,
    with the recorded arguments, and answers as that server does (in process and over stdio)."""
    from tests.helpers.framework_calls import answer_differences as mismatches
    from tests.helpers.framework_calls import framework_calls, runtime_calls, stdio_runtime_calls
    from tests.helpers.json_text import exact_json as exact

    flavor, _ = PATTERNS[package]
    output = patterns[package]["factory_output"]
    theirs = framework_calls(
        flavor, parse_factory_call(factory_call(package)).call(), FACTORY_CALLS
    )
    # The framework's own answers are the oracle; these pin what it answers for the fixture.
    assert [answer.get("structuredContent") for answer in theirs[:3]] == [
        {"result": ["team_welcome", "team_todo"]},
        {"result": ["team_welcome"]},
        {"result": 2},
    ]
    assert theirs[3]["isError"] is True
    for ours in (runtime_calls(output, FACTORY_CALLS), stdio_runtime_calls(output, FACTORY_CALLS)):
        # The refusal of a wrongly typed argument is worded by each side's own validator
        # (README: "only the wording of a refusal differs").
        assert ours[3]["isError"] is True
        assert [exact(a) for a in ours[:3]] == [exact(a) for a in theirs[:3]], mismatches(
            FACTORY_CALLS[:3], theirs[:3], ours[:3]
        )


ERRORS = [
    "published/patterns_errors/added_unreadable.py:21:14: mcp.add_tool(...) registers `lambda text: text`, which is not a function reached by name (a name, `module.function`, `obj.method`), so the generator cannot tell which function it is; pass the function by its name, or decorate the function with @mcp.tool(...) where it is defined",
    "published/patterns_errors/added_unreadable.py:22:14: mcp.add_tool(...) registers `Queries().run`, which is not a function reached by name (a name, `module.function`, `obj.method`), so the generator cannot tell which function it is; pass the function by its name, or decorate the function with @mcp.tool(...) where it is defined",
    "published/patterns_errors/enum_member.py:12:16: decorator argument name= cannot be known at "
    "build time: `ToolName.LOOKUP` is an enum member, which the generator does not pass on as a "
    "value (its representation differs between Python versions); write ToolName.LOOKUP.value",
    "published/patterns_errors/factory_default.py:9:26: decorator argument name= cannot be known "
    "at build time: `namespace` is a parameter of create_server(), known only when it is called; "
    "write the value literally, or, if create_server() builds the server, list the call in "
    '`factories` (factories = ["published.patterns_errors.factory_default:create_server()"]) '
    "so the generator calls it",
    "published/patterns_errors/factory_default.py:10:5: tool 'list_notes' is registered on "
    "`server`, a server that create_server() creates when it runs, so the generator cannot reach "
    "it without calling create_server(); list the call in `factories` (factories = "
    '["published.patterns_errors.factory_default:create_server()"]) in '
    "[tool.mcp-codegen], or create the server at module level",
    'published/patterns_errors/factory_required.py:10:39: decorator argument description= cannot be known at build time: `db_path` is a parameter of create_mcp_server(), known only when it is called; write the value literally, or, if create_mcp_server() builds the server, list the call in `factories` (e.g. factories = ["published.patterns_errors.factory_required:create_mcp_server(..., read_only=...)"] with literal arguments; replace each ... with a literal value for db_path, read_only) so the generator calls it',
    "published/patterns_errors/factory_required.py:11:5: tool 'query' is registered on `server`, a server that create_mcp_server() creates when it runs, so the generator cannot reach it without calling create_mcp_server(); list the call in `factories` (e.g. factories = [\"published.patterns_errors.factory_required:create_mcp_server(..., read_only=...)\"], with literal arguments; replace each ... with a literal value for db_path, read_only) in [tool.mcp-codegen], or create the server at module level",
    "published/patterns_errors/runtime_only.py:19:16: decorator argument name= cannot be known at "
    "build time: `os.environ.get('SEARCH_TOOL')` reads the environment, which is known only at run time; "
    'write the value literally (e.g. name="search") or as a module-level constant built from '
    "literals",
    "published/patterns_errors/runtime_only.py:24:23: decorator argument description= cannot be "
    "known at build time: `Path('README.md').read_text(...)` calls a function, whose result is "
    "known only by running it "
    "(the generator evaluates only ToolAnnotations and Icon from the MCP SDK or fastmcp, "
    "built-in containers, sorted(), str methods, textwrap.dedent and functions of the project "
    "whose body is a single return of a constant expression); write the value literally (e.g. "
    'description="...") or as a '
    "module-level constant built from literals",
    "published/patterns_errors/runtime_only.py:39:19: decorator argument name= cannot be known at "
    "build time: `TOOL_PREFIX` is imported from published.patterns_errors.settings, where "
    "`TOOL_PREFIX` is a module-level constant (published/patterns_errors/settings.py:3:15), but "
    "its value `os.getenv('TOOL_PREFIX', 'acme')` is not constant: `os.getenv('TOOL_PREFIX')` reads the "
    "environment, which is known only at run time; write the value literally (e.g. "
    'name="search") or as a module-level constant built from literals',
    "published/patterns_errors/runtime_only.py:45:23: decorator argument name= cannot be known at "
    "build time: `prefix` is a parameter of register_prefixed(), known only when it is called; "
    "write the value literally or as a module-level constant (the generator calls "
    "register_prefixed() with the server and stand-ins for its other parameters, so their values "
    "are unknown)",
    "published/patterns_errors/stand_in_used.py:8:20: tool 'list_items': the default of "
    "parameter 'count' is <stand-in for store.max_items>, a value register_store_tools() "
    "computes from a parameter the generator only has a stand-in for, so its schema cannot be "
    "known at build time; use a module-level constant or type there",
]


def test_run_time_only_cases_are_exact_errors(tmp_path: Path) -> None:
    project = Project(tmp_path)
    shutil.copytree(PUBLISHED / "patterns_errors", tmp_path / "published" / "patterns_errors")
    project.write("published/__init__.py", "")
    project.configure('sources = ["published/patterns_errors"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 2
    assert [line for line in done.stderr.splitlines() if line.startswith("published/")] == ERRORS
    assert not (tmp_path / "generated").exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'factories = ["pkg.server:create_server(namespace=NAME)"]\nflavor = "mcp"\n',
            "pyproject.toml:3:1: factories: 'pkg.server:create_server(namespace=NAME)': argument "
            "`NAME` is not a literal (the generator calls the factory with fixed values only); "
            "write module:function(arguments) with literal arguments only, optionally followed by "
            "attributes and calls that reach the server, e.g. "
            "\"pkg.server:create_server(namespace='')\" or \"pkg.server:CatalogServer('books').mcp\"",
        ),
        (
            'factories = ["pkg.server:create_server"]\nflavor = "fastmcp"\n',
            "pyproject.toml:3:1: factories: 'pkg.server:create_server' does not call the factory "
            "(add the parentheses); "
            "write module:function(arguments) with literal arguments only, optionally followed by "
            "attributes and calls that reach the server, e.g. "
            "\"pkg.server:create_server(namespace='')\" or \"pkg.server:CatalogServer('books').mcp\"",
        ),
        (
            'factories = ["pkg.server:create_server()"]\n',
            'pyproject.toml:3:1: factories needs flavor = "mcp" or "fastmcp": the tools are '
            "generated as the factory's server lists them, and only a framework server lists them",
        ),
    ],
    ids=["non-literal argument", "no call", "clean flavor"],
)
def test_bad_factories_are_config_errors(tmp_path: Path, body: str, message: str) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(f'[tool.mcp-codegen]\nsources = ["pkg"]\n{body}', encoding="utf-8")
    with pytest.raises(CodegenError) as raised:
        load_config(config)
    assert [str(d).replace(str(config), "pyproject.toml") for d in raised.value.diagnostics] == [
        message
    ]


def test_a_factory_that_defines_no_scanned_tool_is_an_error(project: Project) -> None:
    project.configure(
        'sources = ["pkg"]\nflavor = "mcp"\nfactories = ["pkg.server:create_server()"]\n'
    )
    project.write(
        "pkg/tools.py",
        """
        from mcp.server.mcpserver import MCPServer

        mcp = MCPServer("x")


        @mcp.tool()
        def ping() -> str:
            return "pong"
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        "pyproject.toml: factories: pkg.server:create_server() defines no tool found in "
        "`sources` (no tool decorator inside that function); add the factory's file to "
        "`sources`, or remove the entry"
    )


def test_a_factory_in_sources_that_registers_nothing_itself_says_so(project: Project) -> None:
    """The factory's module is in ``sources``; the tools come from a registration function of
    another module, which is read without the entry: "add the factory's file" would be wrong,
    and removing the entry, as the message says, generates the tool."""
    project.configure(
        'sources = ["pkg"]\nflavor = "mcp"\nfactories = ["pkg.server:create_server()"]\n'
    )
    project.write(
        "pkg/server.py",
        """
        from mcp.server.mcpserver import MCPServer

        from pkg.tools import register


        def create_server() -> MCPServer:
            mcp = MCPServer("x")
            register(mcp)
            return mcp
        """,
    )
    project.write(
        "pkg/tools.py",
        """
        def register(mcp):
            @mcp.tool()
            def ping() -> str:
                return "pong"
        """,
    )
    done = project.run("generate")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        "pyproject.toml: factories: pkg.server:create_server() registers no tool itself: "
        "pkg.server is in `sources`, but create_server() holds no tool decorator or "
        "registration call (the functions it calls in other modules are read where they are "
        "defined, without this entry); remove the entry, or register the tools inside "
        "create_server()"
    )
    project.configure('sources = ["pkg"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    done = project.run("verify", "--against", "pkg.server:create_server()")
    assert done.returncode == 0, done.stdout + done.stderr


def test_registration_functions_work_in_the_clean_flavor_too(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = PUBLISHED / "patterns_sdk2"
    built, _ = build_flavor(
        tmp_path_factory.mktemp("clean"),
        "clean",
        [folder / "tools_global.py", folder / "tools_state.py"],
    )
    registrars = {
        name: (
            tool["x-codegen"]["registrar"].partition(":")[2],
            tool["x-codegen"]["registrar_parameter"],
        )
        for name, tool in built["generated"].items()
    }
    assert registrars == {
        "ping": ("register_tools", "mcp"),
        "echo_text": ("register_tools", "mcp"),
        "uptime": ("register_admin_tools", "mcp"),
        "version": ("register_on_import", "mcp"),
        "balance": ("register_account_tools", "app"),
        "transfer_funds": ("register_account_tools", "app"),
    }
    # clean rules: parameters described, root closed, no titles
    assert built["wire"]["transfer_funds"]["inputSchema"]["required"] == ["to_account", "amount"]
    assert built["wire"]["transfer_funds"]["inputSchema"]["additionalProperties"] is False


def test_a_name_chosen_by_a_factory_may_repeat_on_another_server(project: Project) -> None:
    project.configure(
        'sources = ["pkg"]\nflavor = "mcp"\nfactories = ["pkg.made:create_server(prefix=\'\')"]\n'
    )
    project.write(
        "pkg/tools.py",
        """
        from mcp.server.mcpserver import MCPServer

        mcp = MCPServer("x")


        @mcp.tool()
        def ping() -> str:
            return "pong"
        """,
    )
    project.write(
        "pkg/made.py",
        """
        from mcp.server.mcpserver import MCPServer


        def create_server(prefix: str) -> MCPServer:
            server = MCPServer("made")

            @server.tool(name=f"{prefix}ping")
            def made_ping() -> str:
                return "pong"

            return server
        """,
    )
    # issue 19 item 4: names are unique per server; the factory's server is another server
    # (a clash on one server: tests/e2e/dropin/test_composed_servers.py)
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    _, modules = read_tree(project.root / "generated")
    keys = sorted(
        (t["name"], t["x-codegen"].get("server") or t["x-codegen"].get("factory"))
        for module in modules
        for t in module["TOOLS"]
    )
    assert keys == [("ping", "pkg.made:create_server(prefix='')"), ("ping", "pkg.tools:mcp")]


#: Calls of the tools whose registration function takes state (tools_state.py); the team's
#: server passes store={"acct-1": 12.5}, get_current_id=lambda: "acct-1", validate=str.isalnum.
STATE_CALLS = [
    ("balance", {}),
    ("transfer_funds", {"to_account": "acct2", "amount": 5, "memo": "rent"}),
    ("transfer_funds", {"to_account": "not-valid", "amount": 5}),  # the real validate refuses
]


@pytest.mark.slow
@pytest.mark.parametrize("package", list(PATTERNS))
def test_tools_of_a_registrar_with_state_run_with_their_real_arguments_under_the_hook(
    patterns: dict[str, dict[str, Any]], package: str
) -> None:
    """What the runtime's refusal recommends: the team's own server, started through
    ``mcp-codegen run --generated``, lists these tools from the generated modules and calls them
    with the state its registration call passed; the same answers as a plain start."""
    from tests.helpers.json_text import exact_json_lines as exact
    from tests.runtime.hook.hook_support import (
        drive,
        first_difference,
        hooked_command,
        plain_command,
    )

    target = f"published.{package}.server:mcp"
    output = patterns[package]["main_output"]
    plain = drive(plain_command(target), STATE_CALLS)
    hooked = drive(hooked_command(target, output, "--strict"), STATE_CALLS)

    balance, transfer, refused = hooked["answers"]
    assert balance["structuredContent"] == {"result": 12.5}  # from the real store
    assert transfer["structuredContent"] == {"to": "acct2", "amount": 5.0, "currency": "EUR"}
    assert refused["isError"] is True
    assert [exact(a) for a in hooked["answers"]] == [exact(a) for a in plain["answers"]], (
        first_difference(STATE_CALLS, plain["answers"], hooked["answers"])
    )
    assert exact(hooked["tools"]) == exact(plain["tools"])
    assert "StaleSchemaWarning" not in hooked["stderr"], hooked["stderr"]
