"""Servers reached through a chain after a factory call, named in ``factories`` (issue 19,
item 2): ``module:Class('books').mcp``, ``module:make_app('notes').server`` and
``module:builder().build()``.

Oracles: each real server's own tools/list (the SDK's and fastmcp's clients), ``verify``
against the same chain, and ``mcp-codegen run --strict`` of the chain listing the same tools
from the generated entries. Bad chains are config errors at the ``factories`` key, exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._registration.factory_calls import FactoryCallError, parse_factory_call
from tests.helpers.corpus import (
    FIXTURES,
    assert_same_tools,
    build_flavor,
    fastmcp_client_tools,
    sdk_client_tools,
)
from tests.helpers.json_text import unordered_json
from tests.helpers.project import run_codegen
from tests.helpers.servers import server_env
from tests.runtime.run.run_support import INITIALIZED, exchange, initialize, request, run_command

#: framework -> (flavor, how its framework's own client lists a server)
FRAMEWORKS = {
    "sdk2": ("mcp", sdk_client_tools),
    "fastmcp": ("fastmcp", fastmcp_client_tools),
}
#: fixture module (after the framework's prefix) -> the chains its servers are reached by
CHAINS = {
    "held": ("CatalogServer('books').mcp",),
    "chains": ("make_app('notes').server", "builder().build()"),
}
SOURCE = FIXTURES / "published" / "chains"


def chain(module: str, text: str) -> str:
    return f"published.chains.{module}:{text}"


def build(root: Path, framework: str) -> tuple[dict[str, Any], Path, list[str]]:
    """Both fixture modules of ``framework`` generated with every chain in ``factories``."""
    calls = [chain(f"{framework}_{m}", c) for m, chains in CHAINS.items() for c in chains]
    built, output = build_flavor(
        root,
        FRAMEWORKS[framework][0],
        [SOURCE / f"{framework}_{m}.py" for m in CHAINS],
        f"factories = {json.dumps(calls)}\n",
    )
    return built, output, calls


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_each_chain_generates_what_its_server_lists(tmp_path: Path, framework: str) -> None:
    built, _, calls = build(tmp_path, framework)
    list_tools = FRAMEWORKS[framework][1]
    theirs: dict[str, Any] = {}
    for text in calls:
        theirs.update(list_tools(parse_factory_call(text).call()))
    ours = built["wire"]
    assert sorted(ours) == sorted(theirs) == ["books_search", "count", "notes_list", "ping"]
    assert_same_tools(theirs, ours)
    recorded = {name: tool["x-codegen"]["factory"] for name, tool in built["generated"].items()}
    assert recorded == {
        "books_search": calls[0],
        "count": calls[0],
        "notes_list": calls[1],
        "ping": calls[2],
    }


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_verify_and_run_strict_take_the_chain(tmp_path: Path, framework: str) -> None:
    """``verify --against`` a chain passes, and ``mcp-codegen run --strict`` of it starts
    (every tool it registers has its entry) and lists exactly what the server lists."""
    from mcp_codegen._generator.verify import run

    flavor, list_tools = FRAMEWORKS[framework]
    text = chain(f"{framework}_held", CHAINS["held"][0])
    _, output = build_flavor(
        tmp_path, flavor, [SOURCE / f"{framework}_held.py"], f"factories = {json.dumps([text])}\n"
    )
    assert run(text, output, output.parent, (FIXTURES,), 60.0) == 0
    answers, _, stderr = exchange(
        run_command(str(output), text, "--strict"),
        [initialize(), INITIALIZED, request(2, "tools/list")],
        {2},
        cwd=tmp_path,
        env=server_env(FIXTURES),
    )
    assert 2 in answers, stderr
    listed = {t["name"]: t for t in json.loads(answers[2])["result"]["tools"]}
    theirs = list_tools(parse_factory_call(text).call())
    assert sorted(listed) == ["books_search", "count"]
    assert unordered_json(listed) == unordered_json(theirs), stderr


BAD = [
    ("CatalogServer('books')[0]", "`CatalogServer('books')[0]` is not a name, an attribute or a call"),
    ("CatalogServer.mcp", "does not call the factory (add the parentheses)"),
    ("make_app('notes').server(x)", "argument `x` is not a literal"),
    ("make_app('notes').server(*a)", "* and ** arguments are not allowed"),
    ("(lambda: 1)()", "is not a name, an attribute or a call"),
    ("make_app('notes') + 1", "is not a name, an attribute or a call"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_chain_is_refused_without_evaluating_it(text: str, message: str) -> None:
    with pytest.raises(FactoryCallError) as caught:
        parse_factory_call(chain("sdk2_held", text))
    assert message in str(caught.value)


def test_a_chain_is_followed_step_by_step() -> None:
    call = parse_factory_call("pkg.m:make(1, b='x').server.build(2).mcp")
    assert (call.module, call.qualname, call.args, call.kwargs) == (
        "pkg.m",
        "make",
        (1,),
        (("b", "x"),),
    )
    assert call.chain == (("attribute", "server"), ("attribute", "build"), ("call", (2,), ()), ("attribute", "mcp"))  # fmt: skip


@pytest.mark.process
def test_a_bad_chain_in_the_config_is_an_error_at_the_key(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(
        "[tool.mcp-codegen]\n"
        f"sources = [{json.dumps(str(SOURCE / 'sdk2_held.py'))}]\n"
        'output = "generated"\nflavor = "mcp"\n'
        f"python_path = [{json.dumps(str(FIXTURES))}]\n"
        "\n"
        "factories = [\"published.chains.sdk2_held:CatalogServer('books')[0]\"]\n",
        encoding="utf-8",
    )
    for command in ("generate", "check"):
        result = run_codegen(tmp_path, command)
        assert result.returncode == 2, result.stderr
        assert "pyproject.toml:7:1: factories: " in result.stderr, result.stderr
        assert "is not a name, an attribute or a call" in result.stderr
    assert not (tmp_path / "generated").exists()
    result = run_codegen(
        tmp_path,
        "run",
        "--generated",
        "generated",
        "published.chains.sdk2_held:CatalogServer('books')[0]",
        env=server_env(FIXTURES),
    )
    assert result.returncode == 2
    assert "is not a name, an attribute or a call" in result.stderr, result.stderr
