"""The two fastmcp registration short cuts of ``use_generated`` give what fastmcp's own code gives.

- ``_hook_fastmcp_tool``: a tool whose ``ToolMeta`` sets only defaults is a copy of a validated
  prototype; the oracle is pydantic's validated construction of the same tool.
- ``_hook_fastmcp_decorator``: the decorator reads a plain function's parameter names from its
  code object; the oracle is ``inspect.signature`` (a hypothesis property over generated
  signatures) and fastmcp's own refusal of a ``self`` first parameter, in a fresh process.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import logging
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from fastmcp.tools.function_tool import ToolMeta
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import Icon, ToolAnnotations

from mcp_codegen.runtime._hook import fastmcp_decorator as decorator_cut
from mcp_codegen.runtime._hook.fastmcp_tool import (
    GeneratedFunctionTool,
    copies_are_exact,
    takes_defaults_only,
)
from tests.helpers.project import REPO, Project
from tests.runtime.hook.hook_support import environment

ENTRY: dict[str, Any] = {
    "name": "echo_twice",
    "description": "Echo the text twice.",
    "inputSchema": {
        "properties": {
            "text": {"type": "string"},
            "tags": {"items": {"type": "string"}, "type": "array"},
        },
        "required": ["text"],
        "type": "object",
    },
    "outputSchema": {
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
        "type": "object",
        "x-fastmcp-wrap-result": True,
    },
}


def echo_twice(text: str, tags: list[str] | None = None) -> str:
    return text * 2


async def echo_async(text: str) -> str:
    return text


def _state(tool: GeneratedFunctionTool) -> dict[str, Any]:
    """Everything pydantic keeps on a model instance."""
    return {
        "type": type(tool),
        "fields": dict(tool.__dict__),  # TaskConfig is a dataclass: compared by value
        "fields_set": tool.model_fields_set,
        "private": {k: v for k, v in tool.__pydantic_private__.items() if k != "_copied"},
        "extra": tool.__pydantic_extra__,
        "dump": tool.model_dump(),
    }


DEFAULTS_ONLY = [
    ToolMeta(),
    ToolMeta(name="echo_twice"),
    ToolMeta(description="Said by the decorator."),
    ToolMeta(run_in_thread=False),
    ToolMeta(task=False),
    ToolMeta(enabled=False),
]


@pytest.mark.parametrize("meta", DEFAULTS_ONLY, ids=repr)
@pytest.mark.parametrize("fn", [echo_twice, echo_async])
def test_a_prototype_copy_equals_the_validated_tool(meta: ToolMeta, fn: Any) -> None:
    assert copies_are_exact(GeneratedFunctionTool)
    assert takes_defaults_only(meta)
    copied = GeneratedFunctionTool.from_entry(fn, meta, ENTRY)
    validated = GeneratedFunctionTool.validated(fn, meta, ENTRY)
    assert _state(copied) == _state(validated)
    assert copied._copied and not validated._copied  # the mark CopySeeding reads
    # what validation makes fresh is fresh: a top-level copy of each schema, the tags, the task
    for tool in (copied, validated):
        assert tool.parameters is not ENTRY["inputSchema"]
        assert tool.output_schema is not ENTRY["outputSchema"]
    other = GeneratedFunctionTool.from_entry(fn, meta, ENTRY)
    assert other.tags is not copied.tags and other.task_config is not copied.task_config


def test_the_tool_name_check_still_warns(caplog: pytest.LogCaptureFixture) -> None:
    entry = {**ENTRY, "name": "echo twice!"}
    with caplog.at_level(logging.WARNING, logger="mcp.shared.tool_name_validation"):
        GeneratedFunctionTool.validated(echo_twice, ToolMeta(), entry)
    validated = [r.getMessage() for r in caplog.records]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mcp.shared.tool_name_validation"):
        GeneratedFunctionTool.from_entry(echo_twice, ToolMeta(), entry)
    assert validated and [r.getMessage() for r in caplog.records] == validated


#: a value other than the default for every ToolMeta field the copy does not fill in
NOT_DEFAULT: dict[str, Any] = {
    "version": "2",
    "title": "Echo",
    "icons": [Icon(src="https://example.com/i.png")],
    "tags": {"text"},
    "output_schema": None,
    "annotations": ToolAnnotations(readOnlyHint=True),
    "meta": {"team": "a"},
    "app": True,
    "task": True,
    "timeout": 5.0,
    "auth": [lambda context: True],
}
#: what the copy fills in, add_tool applies (enabled), or marks the kind of metadata (type)
HANDLED = {"name", "description", "run_in_thread", "enabled", "type"}


def test_every_other_option_takes_the_validated_construction() -> None:
    fields = {field.name for field in dataclasses.fields(ToolMeta)}
    # a ToolMeta field this list does not know (a newer fastmcp) must be looked at first
    assert fields == set(NOT_DEFAULT) | HANDLED
    for name, value in NOT_DEFAULT.items():
        assert not takes_defaults_only(ToolMeta(**{name: value})), name
    assert not takes_defaults_only(ToolMeta(description=["not", "a", "string"]))  # type: ignore[arg-type]


def test_a_class_with_another_validator_keeps_the_validated_construction() -> None:
    from pydantic import model_validator

    class Checked(GeneratedFunctionTool):
        @model_validator(mode="after")
        def _also(self) -> Checked:
            return self

    assert copies_are_exact(GeneratedFunctionTool) and not copies_are_exact(Checked)


# --- the decorator's parameter names -------------------------------------------------------


@st.composite
def _signatures(draw: st.DrawFn) -> str:
    names = iter(draw(st.permutations(["a", "b", "c", "d", "e", "f", "g", "self", "cls"])))
    parts: list[str] = []
    positional_only = [next(names) for _ in range(draw(st.integers(0, 2)))]
    ordinary = [next(names) for _ in range(draw(st.integers(0, 2)))]
    parts += positional_only
    if positional_only:
        parts.append("/")
    parts += ordinary
    if draw(st.booleans()):
        parts.append("*" + next(names))
    elif draw(st.booleans()):
        parts.append("*")
    keyword_only = [next(names) for _ in range(draw(st.integers(0, 2)))]
    if parts and parts[-1] == "*" and not keyword_only:
        parts.pop()
    parts += keyword_only
    if draw(st.booleans()):
        parts.append("**" + next(names))
    body = "    x = 1\n    return locals()\n" if draw(st.booleans()) else "    return 0\n"
    return f"def f({', '.join(parts)}):\n{body}"


@settings(max_examples=300, deadline=None)
@given(_signatures())
def test_parameter_names_follow_inspect(source: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # a generated signature, nothing else
    function = namespace["f"]
    assert decorator_cut.parameter_names(function.__code__) == list(
        inspect.signature(function).parameters
    )


def test_the_stand_in_leaves_other_callables_to_inspect() -> None:
    stand_in = decorator_cut.NamesOnlyInspect(inspect, lambda: object())
    inert = decorator_cut.NamesOnlyInspect(inspect, lambda: None)  # use_generated not active

    @functools.wraps(echo_twice)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return echo_twice(*args, **kwargs)

    assert isinstance(stand_in.signature(echo_twice), decorator_cut.ParameterNames)
    for obj in (wrapped, functools.partial(echo_twice, "x"), print, str.upper, object().__str__):
        assert isinstance(stand_in.signature(obj), inspect.Signature)
    assert isinstance(inert.signature(echo_twice), inspect.Signature)
    assert stand_in.Parameter is inspect.Parameter and stand_in.isroutine is inspect.isroutine


def test_the_stand_in_is_refused_where_signature_is_read_otherwise() -> None:
    import fastmcp.server.providers.local_provider.decorators.tools as fastmcp_decorators

    assert decorator_cut.names_only_uses(fastmcp_decorators)
    other = types.ModuleType("other")
    exec(
        "import inspect\ndef bind(fn, *a):\n    return inspect.signature(fn).bind(*a)\n",
        vars(other),
    )
    other.bind.__module__ = "other"
    assert not decorator_cut.names_only_uses(other)


FAST_APP = '''
from fastmcp import FastMCP

fast = FastMCP("fast")


@fast.tool
def double(value: float) -> float:
    """Twice the value."""
    return value * 2
'''

REFUSAL = """
import sys
hooked = sys.argv[1] == "hooked"
if hooked:
    from mcp_codegen.runtime import use_generated
    use_generated("generated")
import pkg.fast as app
import fastmcp.server.providers.local_provider.decorators.tools as decorators
from mcp_codegen.runtime._hook.fastmcp_decorator import NamesOnlyInspect
assert isinstance(decorators.inspect, NamesOnlyInspect) == hooked
class Holder:
    def method(self, x: int) -> int:
        return x
try:
    app.fast.tool(Holder.method)
except TypeError as exc:
    print(exc)
"""


def _hooked_and_plain(
    tmp_path: Path, module: str, app_source: str, script: str, *args: str
) -> dict[str, str]:
    """Generate ``pkg/<module>.py`` (``app_source``) in the fastmcp flavor, then run ``script``
    in a fresh process per mode ("hooked", "plain"; then ``args``): its stdout by mode."""
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write(f"pkg/{module}.py", app_source)
    project.configure(f'sources = ["pkg/{module}.py"]\nflavor = "fastmcp"\n')
    assert project.run("generate").returncode == 0
    env = environment(PYTHONPATH=f"{tmp_path}:{REPO}")
    said = {}
    for mode in ("hooked", "plain"):
        done = subprocess.run(
            [sys.executable, "-c", script, mode, *args],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        said[mode] = done.stdout
    return said


@pytest.mark.slow
@pytest.mark.process
def test_the_decorator_refuses_self_with_fastmcps_own_message(tmp_path: Path) -> None:
    said = _hooked_and_plain(tmp_path, "fast", FAST_APP, REFUSAL)
    assert "'self' as its first parameter" in said["plain"]
    assert said["hooked"] == said["plain"]


# --- the wire-schema cache of prototype-copied tools -----------------------------------------

SEEDED_APP = '''
from typing import Literal

from fastmcp import FastMCP

fast = FastMCP("fast")


@fast.tool
def double(value: float) -> float:
    """Twice the value."""
    return value * 2


@fast.tool(name="greet", description="Say hello.")
def hello(name: str, style: Literal["short", "long"] = "short") -> str:
    return f"hello {name}"


@fast.tool(tags={"maths"})
def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


@fast.tool
async def echo(text: str, times: list[int] | None = None) -> dict[str, str]:
    """Echo the text."""
    return {"text": text}
'''

SEEDING = """
import json, os, sys
hooked = sys.argv[1] == "hooked"
if hooked:
    from mcp_codegen.runtime import use_generated
    use_generated("generated")
from fastmcp.server.server import _SchemaCacheLocalProvider
calls = []
seed = _SchemaCacheLocalProvider._seed_schema
def counted(self, name, candidates):
    calls.append(name)
    return seed(self, name, candidates)
_SchemaCacheLocalProvider._seed_schema = counted
if sys.argv[2] == "namespace":  # a transform other than visibility, present before the tools
    import fastmcp
    from fastmcp.server.transforms.namespace import Namespace
    original = fastmcp.FastMCP.__init__
    def with_namespace(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.add_transform(Namespace("ns"))
    fastmcp.FastMCP.__init__ = with_namespace
import pkg.seeded as app
cache = app.fast._wire_input_schemas
tools = list(app.fast.local_provider._components.values())
own = {t.name: t.to_mcp_tool(name=t.name).input_schema for t in tools}
print(json.dumps({"cache": cache, "own": own, "seed_calls": calls}, sort_keys=True))
"""


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize("transform", ["none", "namespace"])
def test_the_schema_cache_is_what_fastmcp_seeds(tmp_path: Path, transform: str) -> None:
    said = _hooked_and_plain(tmp_path, "seeded", SEEDED_APP, SEEDING, transform)
    seen = {mode: json.loads(out.strip().splitlines()[-1]) for mode, out in said.items()}
    hooked, plain = seen["hooked"], seen["plain"]
    assert hooked["cache"] == plain["cache"]  # fastmcp's own process is the oracle
    if transform == "none":
        assert set(hooked["cache"]) == {"double", "greet", "add", "echo"}
        assert hooked["cache"] == hooked["own"]  # and fastmcp's own computation, tool by tool
        # double, greet and echo are prototype copies. The first tool is seeded by fastmcp's own
        # add_tool (the hook installs its wrappers while registering it), the next copy by
        # fastmcp as the short cut's check, and echo by the short cut. add sets tags, so it is
        # built by validation and seeded fastmcp's way.
        assert hooked["seed_calls"] == ["double", "greet", "add"]
        assert len(plain["seed_calls"]) == 4
    else:
        assert (
            hooked["cache"] == {} and plain["cache"] == {}
        )  # fastmcp drops entries under transforms


def test_the_seeding_short_cut_turns_itself_off_when_fastmcp_disagrees() -> None:
    from fastmcp import FastMCP
    from fastmcp.server.server import Visibility

    from mcp_codegen.runtime._hook.fastmcp_index import CopySeeding

    provider = FastMCP("seeding").local_provider
    tools = {
        name: GeneratedFunctionTool.from_entry(
            echo_twice, ToolMeta(name=name), {**ENTRY, "name": name}
        )
        for name in ("a", "b", "c")
    }
    seeding = CopySeeding(Visibility)
    for name, tool in tools.items():  # the first is fastmcp's own seeding, the rest the copy's
        assert seeding.seed(provider, tool, [tool])
        assert provider._schema_cache[name] == tool.to_mcp_tool(name=name).input_schema
    assert seeding.state == "on"
    assert not seeding.seed(provider, tools["a"], [tools["a"], tools["b"]])  # versions: fastmcp's

    disagreeing = CopySeeding(Visibility)
    provider._seed_schema = lambda name, candidates: provider._schema_cache.__setitem__(name, {})
    assert disagreeing.seed(provider, tools["c"], [tools["c"]]) and disagreeing.state == "off"
    assert provider._schema_cache["c"] == {}  # fastmcp's answer stays
    assert not disagreeing.seed(provider, tools["a"], [tools["a"]])  # and fastmcp seeds from now on
