"""``mcp-codegen run`` on examples/everything: the fast path gives the framework's own answers.

Every message is sent at once, so tools/call, resources and prompts arrive right after
``initialized``, before the server has finished importing: the fast path answers the opening
and hands everything else over with the replay. The oracle is the same command with
``--no-fast-path`` (the SDK's own stdio server answering from the first byte).
"""

from __future__ import annotations

import pytest

from tests.runtime.run.run_support import (
    INITIALIZED,
    exchange,
    initialize,
    request,
    run_command,
)

pytestmark = pytest.mark.process

GENERATED = "examples/everything/generated"
TARGET = "examples.everything.server:mcp"


def _session(revision: str) -> tuple[list[object], set[int]]:
    call = "tools/call"
    messages: list[object] = [
        initialize(revision),
        INITIALIZED,
        request(2, "ping"),
        request(3, "tools/list"),
        request(4, call, {"name": "test_simple_text", "arguments": {}}),
        request(5, call, {"name": "json_schema_2020_12_tool", "arguments": {"name": 5}}),
        request(6, call, {"name": "test_error_handling", "arguments": {}}),
        request(7, call, {"name": "test_multiple_content_types", "arguments": {}}),
        request(8, call, {"name": "no_such_tool", "arguments": {}}),
        request(9, "resources/list"),
        request(10, "resources/read", {"uri": "test://static-text"}),
        request(11, "prompts/list"),
        request(12, "prompts/get", {"name": "test_simple_prompt"}),
        request(13, "no/such/method"),
        request(14, "tools/list"),
        request(15, "ping"),
    ]
    return messages, set(range(1, 16))


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-06-18", "2025-11-25", "1999-01-01"])
def test_same_answers_with_and_without_fast_path(revision: str) -> None:
    messages, expect = _session(revision)
    fast, fast_notes, fast_err = exchange(run_command(GENERATED, TARGET), messages, expect)
    plain, plain_notes, plain_err = exchange(
        run_command(GENERATED, TARGET, "--no-fast-path"), messages, expect
    )
    assert set(plain) == expect, plain_err
    assert set(fast) == expect, fast_err
    for request_id in sorted(expect):
        assert fast[request_id] == plain[request_id], request_id
    assert fast_notes == plain_notes


def test_fast_path_answers_before_the_server_is_imported() -> None:
    """The opening is answered from literals: a server that cannot even be imported still gets
    its initialize and tools/list answered, then the session fails at the handover."""
    messages = [initialize(), INITIALIZED, request(2, "tools/list")]
    fast, _, _ = exchange(run_command(GENERATED, TARGET), messages, {1, 2})
    plain, _, _ = exchange(run_command(GENERATED, TARGET, "--no-fast-path"), messages, {1, 2})
    assert fast == plain and set(fast) == {1, 2}
