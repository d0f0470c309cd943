"""Token estimates: bytes/4 by default, real BPE counts with ``tokenizer = "o200k_base"``."""

from __future__ import annotations

import json

import pytest

from mcp_codegen._profiles.budget import token_counter, tool_sizes, wire_bytes
from tests.helpers.project import Project


def test_bytes_per_four_rounds_up() -> None:
    count = token_counter("bytes/4")
    assert wire_bytes({"a": 1}) == 7 and count({"a": 1}) == 2
    assert wire_bytes("abcdef") == 8 and count("abcdef") == 2
    assert tool_sizes([{"name": "t"}]) == {"t": (12, 3)}


@pytest.mark.slow
def test_o200k_counts_the_compact_json() -> None:
    import bpe_openai  # a test dependency (extra `tokens`): missing must fail, never skip

    encoding = bpe_openai.get_encoding("o200k_base")
    # o200k_base token ids as tiktoken publishes them: "hello" and " world".
    assert encoding.encode("hello world") == [24912, 2375]
    value = {"name": "search", "inputSchema": {"type": "object"}}
    text = json.dumps(value, separators=(",", ":"))
    assert token_counter("o200k_base")(value) == len(encoding.encode(text))
    assert token_counter("o200k_base")(value) < token_counter("bytes/4")(value) * 2


@pytest.mark.process
def test_an_unknown_tokenizer_is_a_usage_error(project: Project) -> None:
    with pytest.raises(ValueError, match="unknown tokenizer 'gpt-9'; known: bytes/4, cl100k_base"):
        token_counter("gpt-9")
    project.configure('sources = ["pkg"]\ntokenizer = "gpt-9"\n')
    project.write(
        "pkg/tools.py",
        "from mcp_codegen.decorators import tool\n\n\n@tool\ndef f() -> int:\n    return 1\n",
    )
    assert project.run("generate").returncode == 0
    done = project.run("lint")
    assert done.returncode == 2 and "unknown tokenizer 'gpt-9'" in done.stderr
    project.configure('sources = ["pkg"]\ntokenizer = "o200k_base"\n')
    done = project.run("lint", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tokenizer"] == "o200k_base"
