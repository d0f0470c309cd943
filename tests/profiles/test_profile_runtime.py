"""Serving a profile: ``load_tools(profile=)`` and ``serve --profile``, with the real Python SDK
client over stdio."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_codegen._profiles import apply_profile
from mcp_codegen.runtime import GeneratedModuleError, load_tools
from tests.helpers.project import REPO, codegen_env

GENERATED = REPO / "generated"


def test_load_tools_with_a_profile_serves_it_and_keeps_the_generated_schema() -> None:
    plain = load_tools(GENERATED)
    strict = load_tools(GENERATED, profile="openai-strict")
    assert plain.profile is None and strict.profile == "openai-strict"
    assert strict.list_tools() == apply_profile(plain.list_tools(), "openai-strict").tools
    assert strict.list_tools() != plain.list_tools()
    assert strict.get_tool("search_books") == plain.get_tool("search_books")
    given = {"query": "x", "genres": None, "limit": None, "sort_by": "title"}
    assert strict.restore_arguments("search_books", given) == {"query": "x", "sort_by": "title"}
    assert plain.restore_arguments("search_books", given) is given


@pytest.mark.process
def test_a_profile_that_cannot_express_a_tool_fails_the_load() -> None:
    with pytest.raises(GeneratedModuleError, match=r"merge_categories -> /inputSchema/properties"):
        load_tools(GENERATED, profile="gemini")
    with pytest.raises(GeneratedModuleError, match="unknown profile 'llama'"):
        load_tools(GENERATED, profile="llama")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_codegen",
            "serve",
            "--generated",
            str(GENERATED),
            "--profile",
            "gemini",
        ],
        capture_output=True,
        text=True,
        env=codegen_env(),
        cwd=REPO,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "cannot be expressed for profile 'gemini'" in done.stderr


@pytest.mark.process
def test_serve_profile_lists_the_profile_and_reads_null_as_absent() -> None:
    async def run() -> dict[str, Any]:
        parameters = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "mcp_codegen",
                "serve",
                "--generated",
                str(GENERATED),
                "--profile",
                "openai-strict",
            ],
            env=codegen_env(),
            cwd=str(REPO),
        )
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            initialized = await session.initialize()
            with anyio.fail_after(120):
                listed = await session.list_tools()
                schema = next(t for t in listed.tools if t.name == "search_books").input_schema
                nulls = {name: None for name in schema["properties"]} | {"query": "the"}
                return {
                    "protocol": initialized.protocol_version,
                    "tools": [
                        t.model_dump(by_alias=True, exclude_none=True, mode="json")
                        for t in listed.tools
                    ],
                    "nulls": await session.call_tool("search_books", nulls),
                    "absent": await session.call_tool("search_books", {"query": "the"}),
                    "wrong": await session.call_tool(
                        "search_books", {"query": "the", "limit": "x"}
                    ),
                }

    outcome = anyio.run(run)
    served = load_tools(GENERATED, profile="openai-strict").list_tools(outcome["protocol"])
    assert outcome["tools"] == served
    assert not outcome["nulls"].is_error, outcome["nulls"]
    assert outcome["nulls"].structured_content == outcome["absent"].structured_content
    assert outcome["nulls"].structured_content["result"]  # the query matched books
    # Arguments are validated against the generated schema, not the loosened profile one.
    assert outcome["wrong"].is_error


@pytest.mark.process
def test_serving_a_profile_imports_only_the_standard_library() -> None:
    code = (
        "import sys\n"
        "from mcp_codegen.runtime import load_tools\n"
        "for name in ('openai-strict', 'claude'):\n"
        f"    load_tools({str(GENERATED)!r}, profile=name)\n"
        "import mcp_codegen._profiles.gemini\n"
        "heavy = {'pydantic', 'jsonschema', 'libcst', 'jinja2', 'mcp', 'typing_extensions'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=codegen_env(), cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
