"""The official MCP conformance suite against ``python -m mcp_codegen.runtime`` over streamable HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conformance.conformance_support import (
    REPO_ROOT,
    run_scenario,
    runtime_http_command,
    server_scenarios,
    start_http_server,
)

pytestmark = [pytest.mark.process, pytest.mark.e2e]

#: What any generated output passes, whatever its tools: the handshake, ping and listing.
PROTOCOL_SCENARIOS = ("server-initialize", "ping", "tools-list")


def test_the_pinned_suite_lists_the_scenarios_we_run(conformance: Path) -> None:
    listed = server_scenarios(conformance)
    assert set(PROTOCOL_SCENARIOS) <= set(listed), listed


def test_the_bookshop_passes_the_protocol_scenarios(conformance: Path) -> None:
    with start_http_server(runtime_http_command(REPO_ROOT / "generated")) as url:
        results = [run_scenario(conformance, url, scenario) for scenario in PROTOCOL_SCENARIOS]
    failed = [result for result in results if not result.ok]
    assert not failed, "\n\n".join(f"{r.scenario}:\n{r.output}" for r in failed)


def test_a_failing_scenario_is_reported_as_failing(conformance: Path) -> None:
    # The bookshop has no `test_simple_text` tool: the parser must see the failure.
    with start_http_server(runtime_http_command(REPO_ROOT / "generated")) as url:
        result = run_scenario(conformance, url, "tools-call-simple-text")
    assert not result.ok
    assert result.failed >= 1 and result.total >= 1, result.output
