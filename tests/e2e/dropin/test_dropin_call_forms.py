"""Every call form of the tool decorator, in every flavor (issue 19, item 3).

Fixtures: tests/fixtures/published/call_forms. The servers register functions of another
module (``mcp.tool(name="find")(lookup)``, ``mcp.add_tool(count_words, ...)``, fastmcp's
``add_tool(Tool.from_function(...))``), ``module.function``, bound methods of objects at module
level and inside a class (``server.tool()(self.get_status)``), and tools under decorators that
keep ``__wrapped__`` or hide a parameter with ``__signature__``.

Oracles: each real server's own tools/list (the SDK's and fastmcp's clients), and
``mcp-codegen run --strict`` of the same server listing the same tools from the generated entries
(strict: a tool without a current entry refuses to start). In ``clean`` the same parameters are
listed and required, ``self`` and the hidden parameter never.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.corpus import (
    FIXTURES,
    SharedBuilds,
    assert_same_tools,
    fastmcp_client_tools,
    sdk_client_tools,
)
from tests.helpers.json_text import unordered_json
from tests.helpers.servers import server_env
from tests.runtime.run.run_support import INITIALIZED, exchange, initialize, request, run_command

pytestmark = pytest.mark.process

SOURCE = FIXTURES / "published" / "call_forms"
#: server module -> (flavor, how its framework's own client lists it)
SERVERS = {
    "sdk2_server": ("mcp", sdk_client_tools),
    "fastmcp_server": ("fastmcp", fastmcp_client_tools),
}
#: tool -> the function the hook finds it by (``x-codegen.function``)
FUNCTIONS = {
    "find": "published.call_forms.helpers:lookup",
    "get_metrics": "published.call_forms.helpers:Metrics.get_metrics",
    "count_words": "published.call_forms.helpers:count_words",
    "reset": "published.call_forms.helpers:Metrics.reset",
    "shout": "published.call_forms.helpers:shout",
    "query": "published.call_forms.helpers:query",
    "get_status": "published.call_forms.{server}:Monitor.get_status",
    "restart_service": "published.call_forms.{server}:Monitor.restart",
    "ping": "published.call_forms.{server}:ping",
    "explain": "published.call_forms.{server}:explain",
    # in a registration function called only by main(): reached with a recording app
    "find_late": "published.call_forms.helpers:lookup",
}


_LATE: set[str] = set()


def theirs(server: str) -> dict[str, dict[str, Any]]:
    """The server's own listing once ``main()`` registered the late tools (it would run next)."""
    module = importlib.import_module(f"published.call_forms.{server}")
    if server not in _LATE:
        module.register_late(module.mcp)
        _LATE.add(server)
    return SERVERS[server][1](module.mcp)


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """Each server generated once per flavor: the listing test and the strict hook's test read
    the same tree."""
    return SharedBuilds(tmp_path_factory.mktemp("call_forms"))


def build(builds: SharedBuilds, server: str, flavor: str) -> tuple[dict[str, Any], Path]:
    return builds.get(flavor, [SOURCE / f"{server}.py", SOURCE / "helpers.py"])


@pytest.mark.slow
@pytest.mark.parametrize("server", list(SERVERS))
def test_every_call_form_generates_what_the_server_lists(builds: SharedBuilds, server: str) -> None:
    built, _ = build(builds, server, SERVERS[server][0])
    listed, ours = theirs(server), built["wire"]
    expected = {*FUNCTIONS, *(["find_key"] if server == "fastmcp_server" else [])}
    assert sorted(ours) == sorted(listed) == sorted(expected)
    assert_same_tools(listed, ours)
    functions = {n: t["x-codegen"]["function"] for n, t in built["generated"].items()}
    for name, function in FUNCTIONS.items():
        assert functions[name] == function.format(server=server), name
    # a function defined in another file records that file's digest for the hook
    assert "function_sha256" in built["generated"]["find"]["x-codegen"]
    assert "function_sha256" not in built["generated"]["get_status"]["x-codegen"]


@pytest.mark.parametrize("server", list(SERVERS))
def test_no_self_and_no_hidden_parameter(builds: SharedBuilds, server: str) -> None:
    """The schema follows the signature the framework sees: ``self`` of a bound method and
    the parameter a decorator hides with ``__signature__`` are never properties, in ``clean``
    neither; the properties and required ones are the framework's."""
    clean, _ = build(builds, server, "clean")
    listed = theirs(server)
    assert sorted(clean["wire"]) == sorted(listed)
    for name, tool in clean["wire"].items():
        schema, framework = tool["inputSchema"], listed[name]["inputSchema"]
        assert sorted(schema.get("properties", {})) == sorted(framework.get("properties", {}))
        assert sorted(schema.get("required", [])) == sorted(framework.get("required", []))
        assert not {"self", "session"} & set(schema.get("properties", {})), name
    assert clean["wire"]["query"]["inputSchema"]["required"] == ["sql"]
    assert clean["wire"]["explain"]["inputSchema"]["required"] == ["sql"]
    assert clean["wire"]["get_metrics"]["description"] == "Metrics of one name."


@pytest.mark.parametrize("server", list(SERVERS))
def test_the_hook_serves_the_same_list_strictly(
    tmp_path: Path, builds: SharedBuilds, server: str
) -> None:
    """``mcp-codegen run --strict`` of ``main`` (``use_generated(strict=True)``, fast path off):
    every tool the server registers, the late ones too, is found in the generated tree by the
    function it was given."""
    _, output = build(builds, server, SERVERS[server][0])
    answers, _, stderr = exchange(
        run_command(
            str(output), f"published.call_forms.{server}:main", "--strict", "--no-fast-path"
        ),
        [initialize(), INITIALIZED, request(2, "tools/list")],
        {2},
        cwd=tmp_path,
        env=server_env(FIXTURES),
    )
    assert 2 in answers, stderr
    listed = {t["name"]: t for t in json.loads(answers[2])["result"]["tools"]}
    assert unordered_json(listed) == unordered_json(theirs(server)), stderr


def test_a_change_to_the_defining_file_is_stale_for_the_hook(tmp_path: Path) -> None:
    """The entry of ``mcp.tool(name="find")(lookup)`` lives in the registering module's
    generated file; a change to helpers.py (where ``lookup`` is defined) makes it stale."""
    import shutil

    package = tmp_path / "src" / "published" / "call_forms"
    shutil.copytree(SOURCE, package)
    (package.parent / "__init__.py").write_text("", encoding="utf-8")
    root = tmp_path / "project"
    config = root / "pyproject.toml"
    root.mkdir()
    config.write_text(
        "[tool.mcp-codegen]\n"
        f"sources = {json.dumps([str(package / 'sdk2_server.py'), str(package / 'helpers.py')])}\n"
        'output = "generated"\nflavor = "mcp"\n'
        f"python_path = {json.dumps([str(tmp_path / 'src')])}\n",
        encoding="utf-8",
    )
    from mcp_codegen._generator.config import load_config
    from mcp_codegen._generator.pipeline import generate

    result, report = generate(load_config(config), use_cache=False)
    assert report is not None and not result.errors
    with (package / "helpers.py").open("a", encoding="utf-8") as handle:
        handle.write("# changed\n")
    answers, _, stderr = exchange(
        run_command(
            "generated", "published.call_forms.sdk2_server:mcp", "--strict", "--no-fast-path"
        ),
        [initialize(), INITIALIZED, request(2, "tools/list")],
        {2},
        cwd=root,
        env=server_env(tmp_path / "src"),
        timeout=60,
    )
    assert 2 not in answers
    assert "refusing to start (strict): tool 'find': its source " in stderr, stderr
    assert "helpers.py changed since generation" in stderr, stderr
