"""The conformance example (examples/conformance) against the runtime: every tool scenario passes.

The suite (``@modelcontextprotocol/conformance`` 0.1.9) drives ``python -m mcp_codegen.runtime`` over
streamable HTTP, serving the generated modules of ``examples/conformance``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from mcp_codegen.runtime import load_tools
from tests.e2e.conformance.conformance_support import (
    REPO_ROOT,
    run_scenario,
    runtime_http_command,
    server_scenarios,
    start_http_server,
)

pytestmark = [pytest.mark.process, pytest.mark.e2e]

EXAMPLE = REPO_ROOT / "examples" / "conformance"
GENERATED = EXAMPLE / "generated"
#: Issue 12: the handshake, listing, every tools-call-* scenario and JSON Schema 2020-12.
SCENARIOS = (
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "json-schema-2020-12",
)


def _tool_scenarios(listed: list[str]) -> list[str]:
    return [name for name in listed if name.startswith("tools-call-")]


@pytest.mark.slow
def test_every_tool_scenario_passes(conformance: Path) -> None:
    listed = server_scenarios(conformance)
    calls = _tool_scenarios(listed)
    assert len(calls) == 10, calls  # the suite's tools-call-* scenarios, 0.1.9
    assert set(SCENARIOS) <= set(listed)
    with start_http_server(runtime_http_command(GENERATED, REPO_ROOT)) as url:
        results = [run_scenario(conformance, url, scenario) for scenario in (*SCENARIOS, *calls)]
    failed = [result for result in results if not result.ok]
    assert not failed, "\n\n".join(f"{r.scenario}:\n{r.output}" for r in failed)
    assert sum(result.passed for result in results) >= len(results)


def _override_literal() -> dict[str, object]:
    """The ``input_schema=`` literal of ``json_schema_2020_12_tool``, read from the source."""
    tree = ast.parse((EXAMPLE / "tools.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "json_schema_2020_12_tool":
            (decorator,) = node.decorator_list
            assert isinstance(decorator, ast.Call)
            (keyword,) = [k for k in decorator.keywords if k.arg == "input_schema"]
            return ast.literal_eval(keyword.value)  # type: ignore[no-any-return]
    raise AssertionError("json_schema_2020_12_tool not found")


def test_an_explicit_input_schema_is_served_verbatim() -> None:
    served = load_tools(GENERATED).get_tool("json_schema_2020_12_tool")["inputSchema"]
    written = _override_literal()
    # Same keys in the same order, $schema and $defs included: compared as JSON text.
    assert json.dumps(served) == json.dumps(written)
    assert served["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "address" in served["$defs"]
