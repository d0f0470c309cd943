"""The scanner finds tools in every kind of statement block, at their own positions."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.discover import load_source
from mcp_codegen._generator.scan.files import scan_file, scan_source

BLOCKS = """
from mcp_codegen.decorators import tool

try:
    @tool
    def in_try() -> int:
        return 1
except ImportError:
    def helper() -> None: ...

    @tool
    def in_except() -> int:
        return 2
else:
    @tool
    def in_else() -> int:
        return 3
finally:
    @tool
    def in_finally() -> int:
        return 4

if MODE == "a":
    @tool
    def in_if() -> int:
        return 5
elif MODE == "b":
    @tool
    def in_elif() -> int:
        return 6
else:
    @tool
    def in_if_else() -> int:
        return 7

match MODE:
    case "a":
        @tool
        def in_case() -> int:
            return 8

for _ in range(1):
    pass
else:
    @tool
    def in_for_else() -> int:
        return 9

with open(__file__) as handle:
    class Holder:
        @tool
        def in_class(self) -> int:
            return 10
"""


def test_tools_in_every_block_are_found_in_source_order(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["blocks.py"]\n')
    source = tmp_path / "blocks.py"
    source.write_text(textwrap.dedent(BLOCKS).lstrip("\n"))
    module = scan_file(source, load_config(tmp_path / "pyproject.toml"))
    assert module is not None
    assert module.diagnostics == ()
    found = [(t.name, t.qualname, t.position.line) for t in module.tools]
    lines = source.read_text().splitlines()
    expected = [
        (name, qualname, next(i for i, text in enumerate(lines, 1) if f"def {name}(" in text))
        for name, qualname in [
            ("in_try", "in_try"),
            ("in_except", "in_except"),
            ("in_else", "in_else"),
            ("in_finally", "in_finally"),
            ("in_if", "in_if"),
            ("in_elif", "in_elif"),
            ("in_if_else", "in_if_else"),
            ("in_case", "in_case"),
            ("in_for_else", "in_for_else"),
            ("in_class", "Holder.in_class"),
        ]
    ]
    assert found == expected


CALL_FORMS = """
from fastmcp import FastMCP
from fastmcp.tools import Tool

mcp = FastMCP("forms")


def lookup(key: str) -> str:
    return key


def count(text: str) -> int:
    return len(text)


def shout(text: str) -> str:
    return text.upper()


{0}mcp.tool(name="find")(lookup)
{1}mcp.add_tool(count)
{2}mcp.add_tool(Tool.from_function(shout, name="loud"))
"""


def test_a_registration_call_reads_the_same_when_its_result_is_assigned(tmp_path: Path) -> None:
    """``wrapped = mcp.tool(...)(fn)`` (mcpforunityserver) and ``x: T = mcp.add_tool(fn)``
    register what the bare statements do: the same tools, at the same lines (they were not read
    at all, and a tool registered only that way was dropped)."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["bare.py", "assigned.py"]\nflavor = "fastmcp"\n'
    )
    config = load_config(tmp_path / "pyproject.toml")
    found = {}
    for name, targets in [
        ("bare", ("", "", "")),
        ("assigned", ("found = ", "added: object = ", "a = b = ")),
    ]:
        source = tmp_path / f"{name}.py"
        source.write_text(CALL_FORMS.format(*targets).lstrip("\n"))
        module = scan_file(source, config)
        assert module is not None and module.diagnostics == ()
        found[name] = [(t.name, t.qualname, t.position.line) for t in module.tools]
    assert [name for name, _, _ in found["bare"]] == ["find", "count", "loud"]
    assert found["assigned"] == found["bare"]


DIRECT_FORMS = """
from fastmcp import FastMCP

mcp = FastMCP("forms")
NAME = "by-name"


def logged(fn):
    return fn


{0}
def lookup(key: str) -> str:
    return key


{1}
def count(text: str) -> int:
    return len(text)


{2}
"""

DECORATED = ('@mcp.tool(name="find", description="Find a key.")', "@mcp.tool", "")
CALLED = (
    "",
    "",
    'mcp.tool(lookup, name="find", description="Find a key.")\nmcp.tool(count)\n'
    "mcp.tool(logged(count))\nregister = mcp.tool(NAME)\nmcp.tool('literal-name')",
)


def test_the_decorator_called_with_the_function_reads_as_the_decorator(tmp_path: Path) -> None:
    """fastmcp's ``mcp.tool(fn, name=...)`` registers what ``@mcp.tool(name=...)`` on ``fn``
    does: the same tools with the same options (it was not read: mcp-server-qdrant). A wrapped
    function is taken from the registration at the call; a name in the first place
    (``mcp.tool(NAME)``, ``mcp.tool('literal-name')``) makes a decorator, not a tool."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["decorated.py", "called.py"]\nflavor = "fastmcp"\n'
    )
    config = load_config(tmp_path / "pyproject.toml")
    found = {}
    for name, parts in [("decorated", DECORATED), ("called", CALLED)]:
        source = tmp_path / f"{name}.py"
        source.write_text(DIRECT_FORMS.format(*parts).lstrip("\n"))
        module = scan_file(source, config)
        assert module is not None and module.diagnostics == ()
        found[name] = module.tools
    decorated = [(t.name, t.qualname, t.options) for t in found["decorated"]]
    called = [(t.name, t.qualname, t.options) for t in found["called"]]
    find = {"name": "find", "description": "Find a key."}
    assert decorated == [("find", "lookup", find), ("count", "count", {})]
    assert called[:2] == decorated
    wrapped = found["called"][2]
    assert (wrapped.name, wrapped.qualname, wrapped.registered_at is not None) == (
        "count",
        "count",
        True,
    )
    assert len(called) == 3


SERVER_CLASS = """
from fastmcp import FastMCP


class NotesServer(FastMCP):
    def __init__(self, name: str, settings) -> None:
        super().__init__(name)
        self.settings = settings
        self.setup_tools()

    def setup_tools(self) -> None:
        def find(key: str) -> str:
            return key

        self.tool(find, name="find", description=self.settings.find_description)

    def register_more(self, client) -> None:
        @self.tool(description=client.base_url)
        def count() -> int:
            return 0
"""


def test_an_attribute_of_the_server_itself_is_named_as_such(tmp_path: Path) -> None:
    """``description=self.settings...`` in a method of a server class is the server's own
    attribute (mcp-server-qdrant): the message said the generator passes "stand-ins for its
    other parameters", which describes ``client`` of a registration function, not ``self``."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["server.py"]\nflavor = "fastmcp"\n'
    )
    source = tmp_path / "server.py"
    source.write_text(SERVER_CLASS.lstrip("\n"))
    module = scan_file(source, load_config(tmp_path / "pyproject.toml"))
    assert module is not None
    messages = {d.line: d.message for d in module.diagnostics}
    assert messages[14].endswith(
        "`self` is a parameter of setup_tools(), known only when it is called; write the value "
        "literally or as a module-level constant (`self` is the server itself: its attributes "
        "are set only when it is built)"
    )
    assert messages[17].endswith(
        "`client` is a parameter of register_more(), known only when it is called; write the "
        "value literally or as a module-level constant (the generator calls register_more() "
        "with the server and stand-ins for its other parameters, so their values are unknown)"
    )


EXECUTION_LIMIT = """
from fastmcp import FastMCP

DEFAULT_TIMEOUT = 90.0


def register_tools(mcp: FastMCP, *, tool_timeout: float = DEFAULT_TIMEOUT) -> None:
    @mcp.tool(timeout=tool_timeout, title="Ping")
    def ping(host: str) -> str:
        return host

    @mcp.tool(timeout=5.0, title=tool_timeout)
    def pong(host: str) -> str:
        return host
"""


def test_an_execution_limit_known_at_run_time_is_not_needed(tmp_path: Path) -> None:
    """fastmcp's ``timeout=`` limits a call and is never listed: a registration function's
    parameter there (mcp-server-linkedin's ``timeout=tool_timeout``) was an error stopping all
    its tools. A listed option read from the same parameter is still one."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["tools.py"]\nflavor = "fastmcp"\n'
    )
    source = tmp_path / "tools.py"
    source.write_text(EXECUTION_LIMIT.lstrip("\n"))
    config = load_config(tmp_path / "pyproject.toml")
    # the framework flavors' scan, as the workers run it (flavor "fastmcp")
    module = scan_source(load_source(source, config), config.decorators, framework=True)
    assert module is not None
    assert [(t.name, t.options) for t in module.tools] == [
        ("ping", {"title": "Ping"}),
        ("pong", {"timeout": 5.0}),
    ]
    [error] = module.diagnostics
    assert (error.line, error.column) == (11, 34)
    assert error.message.startswith("decorator argument title= cannot be known at build time")


HELPERS = """
from mcp.server.mcpserver import MCPServer

from pkg.tools import alpha, beta


def add_read_only_tool(mcp_instance: MCPServer, tool) -> None:
    mcp_instance.add_tool(tool, annotations={"readOnlyHint": True})


def add_write_tool(mcp_instance: MCPServer, tool) -> None:
    mcp_instance.tool(name=None)(tool)


mcp = MCPServer("demo")
for _tool in [alpha]:
    add_read_only_tool(mcp, _tool)
add_write_tool(mcp, beta)
"""


def test_a_helper_registering_its_parameter_is_one_error_at_that_parameter(
    tmp_path: Path,
) -> None:
    """pagerduty-mcp's ``add_read_only_tool(mcp, tool)``: each call registers another
    function, so no tool can be read there. One error per helper at its parameter (it was
    read as a tool named ``tool``: a false duplicate between the two helpers, and advice to
    pass ``name=``)."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["helpers.py"]\nflavor = "mcp"\n'
    )
    source = tmp_path / "helpers.py"
    source.write_text(HELPERS.lstrip("\n"))
    module = scan_file(source, load_config(tmp_path / "pyproject.toml"))
    assert module is not None and module.tools == ()
    found = [(d.line, d.column, d.message.split(",")[0]) for d in module.diagnostics]
    assert found == [
        (7, 27, "`tool` is a parameter of add_read_only_tool()"),
        (11, 34, "`tool` is a parameter of add_write_tool()"),
    ]


REGISTRY = """
from mcp.server.mcpserver import MCPServer


class ToolRegistry:
    def __init__(self, server: MCPServer) -> None:
        self.server = server

    def register(self, name: str, title: str):
        def decorate(function):
            self.server.tool(name=name, title=title)(function)
            return function

        return decorate
"""


def test_a_helper_whose_options_read_other_parameters_names_those_options(
    tmp_path: Path,
) -> None:
    """excel-mcp-server's ``ToolRegistry``: the registered function is ``decorate``'s
    parameter, and the options are ``register``'s. Each option is the error (what the message
    can name precisely), not the function parameter."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["registry.py"]\nflavor = "mcp"\n'
    )
    source = tmp_path / "registry.py"
    source.write_text(REGISTRY.lstrip("\n"))
    module = scan_file(source, load_config(tmp_path / "pyproject.toml"))
    assert module is not None
    messages = [(d.line, d.message) for d in module.diagnostics]
    assert [line for line, _ in messages] == [10, 10]
    assert all("cannot be known at build time" in message for _, message in messages), messages
    assert not any("is a parameter of decorate()" in message for _, message in messages)
