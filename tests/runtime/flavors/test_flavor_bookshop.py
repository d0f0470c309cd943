"""The bookshop example (examples/bookshop) built as flavors "mcp" and "fastmcp": every tool
called on the runtime and on the real framework, with the same arguments, from the same state.

The bookshop is written with mcp-codegen's own ``@tool``, so the oracle registers each function
on a real ``MCPServer`` / ``fastmcp.FastMCP`` with the options the decorator recorded, as
tests/e2e/dropin/test_dropin_examples.py does for listings. Where a flavor applies an mcp-codegen
rule that no framework can express (docs/flavors.md), the oracle gets the same rule:

- parameters of injected types (``Settings``, ``ConfigPaths``; and under fastmcp the SDK's
  ``Context``) are hidden from the framework and supplied as the runtime supplies them;
- a tool with ``input_schema=`` shows the framework no parameters, so the oracle's stand-in calls
  it with the same arguments the runtime receives;
- ``box_field=`` renames the framework's ``result`` box in structuredContent.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers.corpus import BOOKSHOP
from tests.helpers.examples import example_tools, framework_decorator
from tests.helpers.framework_calls import (
    answer_differences,
    build,
    framework_calls,
    planned_calls,
    runtime_calls,
)
from tests.helpers.json_text import exact_json
from tests.runtime.runtime_support import EXAMPLE_CALLS

pytestmark = pytest.mark.process

TABLE = {name: [arguments] for name, arguments in EXAMPLE_CALLS.items()}


def _sdk_context_now() -> Any:
    """The SDK ``Context`` the runtime would give this request, from inside a fastmcp call."""
    from fastmcp.server.dependencies import get_context
    from mcp.server.mcpserver import Context

    request = get_context().request_context
    assert request is not None
    return Context(request_context=request._srctx)  # fastmcp's documented escape hatch


def _calling(
    function: Callable[..., Any], hidden: list[str], baked: dict[str, Any] | None
) -> Callable[..., Any]:
    """``function`` behind the signature a framework is shown: ``hidden`` parameters left out
    and supplied at call time; with ``baked`` arguments, no parameters at all."""
    from mcp.server.mcpserver import Context

    signature = inspect.signature(function)
    hints = typing.get_type_hints(function, include_extras=True)
    kept = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name not in hidden and baked is None
    ]
    # The annotation as written: get_type_hints turns `-> None` into NoneType, which fastmcp
    # (unlike the SDK) describes with an output schema.
    returns = signature.return_annotation
    if isinstance(returns, str):
        returns = hints["return"]
    shown = signature.replace(parameters=kept, return_annotation=returns)

    def arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        values = dict(baked) if baked is not None else dict(shown.bind(*args, **kwargs).arguments)
        for name in hidden:
            kind = hints[name]
            values[name] = _sdk_context_now() if kind is Context else kind()
        return values

    if inspect.iscoroutinefunction(function):

        async def calling(*args: Any, **kwargs: Any) -> Any:
            return await function(**arguments(args, kwargs))

    else:

        def calling(*args: Any, **kwargs: Any) -> Any:
            return function(**arguments(args, kwargs))

    calling.__name__ = function.__name__
    calling.__qualname__ = function.__qualname__
    calling.__doc__ = function.__doc__
    calling.__signature__ = shown  # type: ignore[attr-defined]
    calling.__annotations__ = {p.name: p.annotation for p in kept} | (
        {} if returns is inspect.Signature.empty else {"return": returns}
    )
    return calling


def _oracle(
    flavor: str, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[Any, dict[str, dict[str, Any]]]:
    """The real framework server with every bookshop tool, and each tool's codegen options."""
    from mcp.server.mcpserver import Context

    from examples.bookshop.deps import ConfigPaths, Settings

    if flavor == "mcp":
        from mcp.server.mcpserver import MCPServer

        server: Any = MCPServer("bookshop")
        hidden_types: tuple[type, ...] = (Settings, ConfigPaths)
    else:
        import fastmcp

        server = fastmcp.FastMCP("bookshop")
        hidden_types = (Settings, ConfigPaths, Context)  # fastmcp does not know the SDK's Context
    arguments_by_tool = dict(calls)
    options_by_name = {}
    for function, options in example_tools():
        name = options.get("name", function.__name__)
        decorator = framework_decorator(options, flavor)
        hints = typing.get_type_hints(function)
        hidden = [p for p, hint in hints.items() if p != "return" and hint in hidden_types]
        baked = arguments_by_tool[name] if "input_schema" in options else None
        server.tool(**decorator)(_calling(function, hidden, baked))
        options_by_name[name] = options
    return server, options_by_name


def _expected(answer: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    field = options.get("box_field")
    structured = answer.get("structuredContent")
    if field and isinstance(structured, dict) and list(structured) == ["result"]:
        return {**answer, "structuredContent": {field: structured["result"]}}
    return answer


@pytest.mark.parametrize("flavor", ["mcp", "fastmcp"])
def test_every_bookshop_tool_answers_as_the_framework_does(flavor: str) -> None:
    output = build(flavor, [BOOKSHOP])
    calls = planned_calls(output, TABLE)
    assert len({name for name, _ in calls}) == 21
    server, options = _oracle(flavor, calls)
    oracle_calls = [(name, {} if "input_schema" in options[name] else args) for name, args in calls]
    theirs = [
        _expected(answer, options[name])
        for (name, _), answer in zip(
            calls, framework_calls(flavor, server, oracle_calls), strict=True
        )
    ]
    ours = runtime_calls(output, calls)
    assert [exact_json(a) for a in ours] == [exact_json(a) for a in theirs], answer_differences(
        calls, theirs, ours
    )
    # Not vacuous: most calls succeed with structured results, and the renamed box is there.
    succeeded = [a for a in theirs if "structuredContent" in a and not a.get("isError")]
    assert len(succeeded) >= 15, theirs
    count = next(a for (name, _), a in zip(calls, ours, strict=True) if name == "count_members")
    assert list(count["structuredContent"]) == ["total"]
