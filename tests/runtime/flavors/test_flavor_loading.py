"""Loading flavored outputs, and reaching tools defined inside registration functions.

Loading and listing stay standard-library only in every flavor; the registration function of a
tool runs on the first call of one of its tools, once, with the recording stand-in the generator
used (``mcp_codegen._registration.registrar.capture``).
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_codegen.runtime import GeneratedModuleError, load_tools
from mcp_codegen.runtime._call.invoke import ToolCaller
from tests.helpers.project import REPO

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

#: Never imported to load or list tools (mcp_codegen._generator.flavors belongs to the first call too).
HEAVY = ("pydantic", "pydantic_core", "jsonschema", "mcp", "mcp_types", "fastmcp", "anyio")


def test_loading_and_listing_flavored_outputs_imports_only_the_standard_library(
    outputs: dict[str, Path],
) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from mcp_codegen.runtime import load_tools
        for output in {[str(outputs["sdk2"]), str(outputs["fastmcp_style"])]!r}:
            registry = load_tools(output)
            assert registry.list_tools() and registry.flavor in ("mcp", "fastmcp")
            bindings = [registry.binding(name) for name in registry.names()]
            assert any(binding.registrar for binding in bindings)
        print(repr(sorted(sys.modules)))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    loaded = ast.literal_eval(completed.stdout)
    assert [name for name in loaded if name.split(".")[0] in HEAVY] == []
    assert [
        name for name in loaded if name.startswith(("published", "mcp_codegen._generator.flavors"))
    ] == []


def test_bindings_carry_the_flavor_the_registrar_and_the_result_meta(
    outputs: dict[str, Path],
) -> None:
    sdk = load_tools(outputs["sdk2"])
    write_file = sdk.binding("write_file")
    assert (write_file.flavor, write_file.registrar, write_file.registrar_parameter) == (
        "mcp",
        "published.sdk2.registry_files:register_file_tools",
        "app",
    )
    assert write_file.qualname == "register_file_tools.<locals>.write_text"
    assert sdk.binding("add_note").registrar is None
    fast = load_tools(outputs["fastmcp_style"])
    count = fast.binding("count_tasks")
    assert count.flavor == "fastmcp" and count.box_field == "result"
    assert count.result_meta == {"fastmcp": {"wrap_result": True}}
    count.result_meta["fastmcp"]["wrap_result"] = False  # type: ignore[index]
    assert fast.binding("count_tasks").result_meta == {"fastmcp": {"wrap_result": True}}
    assert fast.binding("board").result_meta is None
    assert hash(count) == hash(fast.binding("count_tasks"))


# --- registration functions, on a hand-written output ---------------------------------------------

TOOL_MODULE = """
CALLS = []


def register_counted(app):
    CALLS.append(app)

    @app.tool()
    def first() -> str:
        return "first"

    @app.tool(name="second_tool")
    def second() -> str:
        return "second"


def register_needs_db(app, db):
    @app.tool()
    def needs() -> str:
        return "never"


def register_nothing(app):
    pass


def register_raises(app):
    raise RuntimeError("the registration function failed")


FACTORY_CALLS = []


def create_server(prefix, *, suffix=""):
    from mcp.server.mcpserver import MCPServer

    FACTORY_CALLS.append((prefix, suffix))
    server = MCPServer("made")

    @server.tool(name=f"{prefix}first")
    def first() -> str:
        return prefix + "first" + suffix

    @server.tool(name=f"{prefix}second")
    def second() -> str:
        return prefix + "second" + suffix

    return server


def create_fastmcp(prefix):
    from fastmcp import Context, FastMCP

    server = FastMCP(f"{prefix}made")

    @server.tool(name=f"{prefix}whose")
    def whose(ctx: Context) -> str:
        return ctx.fastmcp.name

    return server


def create_failing():
    raise RuntimeError("the factory failed")


def register_with_dependencies(app):
    from fastmcp import Context
    from fastmcp.dependencies import CurrentContext, Depends

    def answer() -> int:
        return 42

    @app.tool()
    def current(ctx: Context = CurrentContext()) -> str:
        return type(ctx).__name__

    @app.tool()
    def depends(value: int = Depends(answer)) -> str:
        return str(value)
"""


def _boxed(name: str, module: str, registrar: str, qualname: str) -> dict[str, Any]:
    return {
        "name": name,
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "string"}},
            "required": ["result"],
        },
        "x-codegen": {
            "function": f"{module}:{registrar}.<locals>.{qualname}",
            "box": {"field": "result"},
            "line": 1,
            "column": 1,
            "registrar": f"{module}:{registrar}",
            "registrar_parameter": "app",
        },
    }


def _wrapped(tool: dict[str, Any]) -> dict[str, Any]:
    """``tool`` as flavor "fastmcp" writes a boxed tool."""
    tool["outputSchema"]["x-fastmcp-wrap-result"] = True
    tool["x-codegen"]["result_meta"] = {"fastmcp": {"wrap_result": True}}
    return tool


def _write_output(directory: Path, tools: list[dict[str, Any]], *, flavor: str = "mcp") -> Path:
    directory.mkdir(parents=True)
    (directory / "__init__.py").write_text(
        "# Generated by mcp-codegen 0.1.0. Do not edit by hand.\n"
        f'FORMAT = 1\nFLAVOR = "{flavor}"\nMODULES = ("tools.py",)\nTOOL_COUNT = {len(tools)}\n',
        encoding="utf-8",
    )
    (directory / "tools.py").write_text(
        "# Generated by mcp-codegen 0.1.0 from x.py. Do not edit by hand.\n"
        f'FORMAT = 1\nFLAVOR = "{flavor}"\nTOOLS = {tuple(tools)!r}\n',
        encoding="utf-8",
    )
    return directory


@pytest.fixture
def registrars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    """A fresh importable module of registration functions: its name and the module."""
    name = f"registrars_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(TOOL_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name, importlib.import_module(name)


def _call(caller: ToolCaller, name: str) -> dict[str, Any]:
    result = anyio.run(caller.call, name, {})
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)  # type: ignore[no-any-return]


def test_a_registration_function_runs_once_for_all_of_its_tools(
    tmp_path: Path, registrars: tuple[str, Any]
) -> None:
    module, loaded = registrars
    output = _write_output(
        tmp_path / "out",
        [
            _boxed("first", module, "register_counted", "first"),
            _boxed("second_tool", module, "register_counted", "second"),
        ],
    )
    caller = ToolCaller(load_tools(output))
    answers = [_call(caller, name) for name in ("first", "second_tool", "first")]
    assert [answer["structuredContent"] for answer in answers] == [
        {"result": "first"},
        {"result": "second"},
        {"result": "first"},
    ]
    assert [answer["content"] for answer in answers][1] == [{"type": "text", "text": "second"}]
    assert len(loaded.CALLS) == 1
    assert type(loaded.CALLS[0]).__name__ == "RecordingApp"  # never a real server


@pytest.mark.parametrize(
    ("registrar", "qualname", "message"),
    [
        (
            "register_needs_db",
            "needs",
            "Tool 'needs': its registration function {module}:register_needs_db also needs db, "
            "which only your own server passes it (the generator listed the tool with stand-ins "
            "for them), so this server cannot call it. Serve your own server with its framework "
            "and these generated schemas instead: `mcp-codegen run --generated {output} "
            "MODULE:SERVER`, or `mcp_codegen.runtime.use_generated('{output}')` at the top of your "
            'server module (README, "Keep your server"); or give those parameters defaults',
        ),
        (
            "register_nothing",
            "gone",
            "Tool 'gone': its registration function {module}:register_nothing did not register "
            "register_nothing.<locals>.gone (it registered nothing); the generated modules are "
            "out of step with the source, regenerate them",
        ),
        (
            "register_raises",
            "never",
            "Tool 'never': cannot call its registration function {module}:register_raises with "
            "a recording 'app': RuntimeError: the registration function failed",
        ),
    ],
    ids=["needs-another-argument", "out-of-step", "raises"],
)
def test_registration_functions_that_cannot_deliver_are_tool_errors(
    tmp_path: Path, registrars: tuple[str, Any], registrar: str, qualname: str, message: str
) -> None:
    module, _ = registrars
    output = _write_output(tmp_path / "out", [_boxed(qualname, module, registrar, qualname)])
    answer = _call(ToolCaller(load_tools(output)), qualname)
    assert answer == {
        "content": [{"type": "text", "text": message.format(module=module, output=output)}],
        "isError": True,
        "resultType": "complete",
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"FLAVOR": "django"},
            "FLAVOR 'django' is not one this runtime serves (clean, mcp, fastmcp)",
        ),
        ({"registrar_parameter": None}, "needs both x-codegen.registrar"),
        ({"registrar": "no_colon"}, "needs both x-codegen.registrar"),
        ({"registrar_parameter": "not an identifier"}, "needs both x-codegen.registrar"),
        ({"result_meta": ["wrap"]}, "malformed x-codegen.result_meta"),
        (
            {"factory": ["pkg.mod:create_server()"]},
            "malformed x-codegen.factory",
        ),
        ({"factory": "create_server()"}, "malformed x-codegen.factory"),
    ],
)
def test_malformed_flavor_keys_are_refused_at_load(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    tool = _boxed("first", "pkg.mod", "register_counted", "first")
    flavor = change.pop("FLAVOR", "mcp")
    tool["x-codegen"].update(change)
    tool["x-codegen"] = {k: v for k, v in tool["x-codegen"].items() if v is not None}
    output = _write_output(tmp_path / "out", [tool], flavor=flavor)
    with pytest.raises(GeneratedModuleError, match=re.escape(message)):
        load_tools(output)


def test_fastmcp_context_dependencies_work_and_other_dependencies_are_refused_clearly(
    tmp_path: Path, registrars: tuple[str, Any]
) -> None:
    module, _ = registrars
    output = _write_output(
        tmp_path / "out",
        [
            _wrapped(_boxed("current", module, "register_with_dependencies", "current")),
            _wrapped(_boxed("depends", module, "register_with_dependencies", "depends")),
        ],
        flavor="fastmcp",
    )
    caller = ToolCaller(load_tools(output))
    assert _call(caller, "current") == {
        "content": [{"type": "text", "text": "Context"}],
        "structuredContent": {"result": "Context"},
        "isError": False,
        "resultType": "complete",
        "_meta": {"fastmcp": {"wrap_result": True}},
    }
    assert _call(caller, "depends") == {
        "content": [
            {
                "type": "text",
                "text": "Tool 'depends': parameter 'value' takes its value from a fastmcp "
                "dependency (Depends(...) and the like), which this runtime does not resolve; "
                "annotate it with a type the server supplies (fastmcp's or the SDK's Context, or "
                "a class given to the server's dependencies)",
            }
        ],
        "isError": True,
        "resultType": "complete",
    }


def test_a_fastmcp_context_is_supplied_in_flavor_clean_too(
    tmp_path: Path, registrars: tuple[str, Any]
) -> None:
    module, _ = registrars
    tool = _boxed("current", module, "register_with_dependencies", "current")
    output = _write_output(tmp_path / "out", [tool], flavor="clean")
    assert _call(ToolCaller(load_tools(output)), "current") == {
        "content": [{"type": "text", "text": '{"result": "Context"}'}],
        "structuredContent": {"result": "Context"},
        "isError": False,
        "resultType": "complete",
    }


def _made(name: str, module: str, call: str, qualname: str) -> dict[str, Any]:
    """A boxed tool of the server that factory call ``call`` returns (config ``factories``)."""
    tool = _boxed(name, module, call.partition("(")[0].partition(":")[2], qualname)
    private = tool["x-codegen"]
    del private["registrar"], private["registrar_parameter"]
    private["factory"] = call
    return tool


def test_a_factory_is_called_once_with_its_recorded_arguments_for_all_of_its_tools(
    tmp_path: Path, registrars: tuple[str, Any]
) -> None:
    module, loaded = registrars
    call = f"{module}:create_server('x_', suffix='!')"
    output = _write_output(
        tmp_path / "out",
        [_made("x_first", module, call, "first"), _made("x_second", module, call, "second")],
    )
    caller = ToolCaller(load_tools(output))
    answers = [_call(caller, name) for name in ("x_first", "x_second", "x_first")]
    assert [answer["structuredContent"] for answer in answers] == [
        {"result": "x_first!"},
        {"result": "x_second!"},
        {"result": "x_first!"},
    ]
    assert loaded.FACTORY_CALLS == [("x_", "!")]


@pytest.mark.parametrize(
    ("call", "qualname", "message"),
    [
        (
            "{module}:create_failing()",
            "never",
            "Tool 'made': cannot call its factory {module}:create_failing(): RuntimeError: the "
            "factory failed",
        ),
        (
            "{module}:create_server('x_')",
            "gone",
            "Tool 'made': the server of its factory {module}:create_server('x_') registers no "
            "{module}:create_server.<locals>.gone (it registers "
            "{module}:create_server.<locals>.first, {module}:create_server.<locals>.second); the "
            "generated modules are out of step with the source, regenerate them",
        ),
    ],
    ids=["raises", "out-of-step"],
)
def test_factories_that_cannot_deliver_are_tool_errors(
    tmp_path: Path, registrars: tuple[str, Any], call: str, qualname: str, message: str
) -> None:
    module, _ = registrars
    tool = _made("made", module, call.format(module=module), qualname)
    answer = _call(ToolCaller(load_tools(_write_output(tmp_path / "out", [tool]))), "made")
    assert answer == {
        "content": [{"type": "text", "text": message.format(module=module)}],
        "isError": True,
        "resultType": "complete",
    }


def test_a_fastmcp_context_of_a_factory_tool_refers_to_the_factorys_server(
    tmp_path: Path, registrars: tuple[str, Any]
) -> None:
    """As on the server the factory returns, where fastmcp's own client gets the same answer."""
    import fastmcp

    module, loaded = registrars
    call = f"{module}:create_fastmcp('x_')"
    tool = _wrapped(_made("x_whose", module, call, "whose"))
    output = _write_output(tmp_path / "out", [tool], flavor="fastmcp")
    ours = _call(ToolCaller(load_tools(output)), "x_whose")

    async def theirs() -> Any:
        async with fastmcp.Client(loaded.create_fastmcp("x_")) as client:
            return await client.call_tool_mcp("x_whose", {})

    assert ours["structuredContent"] == {"result": "x_made"}
    expected = anyio.run(theirs).model_dump(by_alias=True, mode="json", exclude_none=True)
    assert ours["structuredContent"] == expected["structuredContent"]
    assert ours["content"] == expected["content"]
