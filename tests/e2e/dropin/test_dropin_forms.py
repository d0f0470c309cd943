"""Registration forms seen in published servers (issue 35, item 3).

Fixtures: tests/fixtures/published/forms, one module per form and framework. Oracles: each
server's own tools/list through its framework's client, and ``mcp-codegen run --strict`` of the
same server (every registered tool found in the generated tree) listing exactly the same. A form
whose value is only known at run time is an exact ``path:line:col`` error instead.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen.generator.config import load_config
from mcp_codegen.generator.pipeline import generate
from tests.helpers.corpus import (
    FIXTURES,
    assert_same_tools,
    build_flavor,
    fastmcp_client_tools,
    sdk_client_tools,
    write_config,
)
from tests.helpers.json_text import unordered_json
from tests.helpers.servers import QUIET_FASTMCP, server_env
from tests.runtime.run.run_support import INITIALIZED, exchange, initialize, request, run_command

pytestmark = pytest.mark.slow

SOURCE = FIXTURES / "published" / "forms"
PACKAGE = "published.forms"
LISTERS: dict[str, Callable[[Any], dict[str, dict[str, Any]]]] = {
    "mcp": sdk_client_tools,
    "fastmcp": fastmcp_client_tools,
}
#: (module, server attribute, flavor, the tool names its framework lists: checked by hand
#: against the fixture, so a listing that loses a tool fails too)
SERVERS = [
    ("a_register_fastmcp", "mcp", "fastmcp", ["get_issue", "search_issues", "whoami"]),
    ("a_register_sdk2", "mcp", "mcp", ["get_issue", "search_issues", "whoami"]),
    ("b_subclass_fastmcp", "mcp", "fastmcp", ["grip", "move"]),
    ("b_subclass_fastmcp", "app", "fastmcp", ["query"]),
    ("b_subclass_sdk2", "mcp", "mcp", ["grip", "move"]),
    ("b_subclass_sdk2", "app", "mcp", ["query"]),
]
IDS = [f"{module}:{attribute}" for module, attribute, _, _ in SERVERS]


def build_server(root: Path, module: str, attribute: str, flavor: str) -> tuple[dict, Path]:
    """Generate the module; the tools of the one server (``x-codegen.server``; none recorded for
    a registration function's parameter, in modules with one server), as served."""
    built, output = build_flavor(root, flavor, [SOURCE / f"{module}.py"])
    key = f"{PACKAGE}.{module}:{attribute}"
    servers = {n: t["x-codegen"].get("server") for n, t in built["generated"].items()}
    mine = {n for n, server in servers.items() if server in (key, None)}
    return {n: t for n, t in built["wire"].items() if n in mine}, output


def theirs(module: str, attribute: str, flavor: str) -> dict[str, dict[str, Any]]:
    server = getattr(importlib.import_module(f"{PACKAGE}.{module}"), attribute)
    return LISTERS[flavor](server)


@pytest.mark.parametrize(("module", "attribute", "flavor", "names"), SERVERS, ids=IDS)
def test_each_form_generates_what_the_server_lists(
    tmp_path: Path, module: str, attribute: str, flavor: str, names: list[str]
) -> None:
    ours, _ = build_server(tmp_path, module, attribute, flavor)
    listed = theirs(module, attribute, flavor)
    assert sorted(listed) == names
    assert_same_tools(listed, ours)


@pytest.mark.parametrize(("module", "attribute", "flavor", "names"), SERVERS, ids=IDS)
def test_the_strict_hook_lists_the_same(
    tmp_path: Path, module: str, attribute: str, flavor: str, names: list[str]
) -> None:
    """``mcp-codegen run --strict`` (fast path off): every tool the server registers has a
    current generated entry, and the hooked listing is the plain server's."""
    _, output = build_server(tmp_path, module, attribute, flavor)
    answers, _, stderr = exchange(
        run_command(str(output), f"{PACKAGE}.{module}:{attribute}", "--strict", "--no-fast-path"),
        [initialize(), INITIALIZED, request(2, "tools/list")],
        {2},
        cwd=tmp_path,
        env=server_env(FIXTURES, **QUIET_FASTMCP),
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
