"""``use_generated`` changes nothing a client can see: same tools/list, same tools/call answers.

Each server of the drop-in corpus (tests/fixtures/published: SDK 2.x, SDK 1.x style — served by
``MCPServer`` here, by the real 1.x ``FastMCP`` in ``nox -s dropin_sdk1`` — and fastmcp) and of
the flavor extras (content blocks, images, tools that raise, ``ToolError``, ``MCPError``,
generators, contexts) is generated in its framework's flavor, then started twice as a real
process over stdio: plainly, and through ``mcp-codegen run --generated``. The official
``ClientSession`` lists the tools and makes the same calls, in the same order, from a fresh
process each time: valid arguments (tests/runtime/flavors's table), invalid arguments (a
required parameter missing or a wrongly typed value), and an unknown tool. Every answer must be
equal as JSON, key order included.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.framework_calls import CALLS, PACKAGES, build
from tests.helpers.json_text import exact_json_lines
from tests.helpers.project import REPO
from tests.runtime.hook.hook_support import (
    all_calls,
    drive,
    first_difference,
    hooked_command,
    plain_command,
)

pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def outputs() -> dict[str, Path]:
    import fastmcp  # noqa: F401 - a test dependency: missing must fail, never skip

    return {package: build(flavor, sources) for package, (flavor, sources, _) in PACKAGES.items()}


@pytest.mark.slow
@pytest.mark.parametrize("package", list(PACKAGES))
def test_same_list_and_calls_with_and_without_the_hook(
    outputs: dict[str, Path], package: str
) -> None:
    _, _, target = PACKAGES[package]
    calls = all_calls(outputs[package], CALLS)
    plain = drive(plain_command(target), calls)
    hooked = drive(hooked_command(target, outputs[package]), calls)

    assert exact_json_lines(hooked["tools"]) == exact_json_lines(plain["tools"])
    assert [exact_json_lines(a) for a in hooked["answers"]] == [
        exact_json_lines(a) for a in plain["answers"]
    ], first_difference(calls, plain["answers"], hooked["answers"])
    assert "StaleSchemaWarning" not in hooked["stderr"], hooked["stderr"]
    _assert_coverage(package, plain["answers"])


def _assert_coverage(package: str, answers: list[dict[str, Any]]) -> None:
    """The calls reach what the comparison claims: refusals, failures and, for the extras,
    content blocks other than text."""
    errors = [a for a in answers if a.get("isError") or "jsonrpc_error" in a]
    successes = [a for a in answers if not a.get("isError") and "content" in a]
    assert len(errors) >= 3 and len(successes) >= 3, (package, len(errors), len(successes))
    if package.startswith("extras"):
        kinds = {block["type"] for a in successes for block in a["content"]}
        assert {"text", "image"} <= kinds, kinds


#: examples/everything: arguments for the tools that take some (the others are called with {})
EVERYTHING_CALLS = {
    "test_sampling": [{"prompt": "What is six times seven?"}],
    "test_elicitation": [{"message": "Who are you?"}],
    "json_schema_2020_12_tool": [
        {"name": "Ada", "address": {"street": "1 Main St", "city": "London"}},
        {"name": "Ada"},
    ],
}


def test_everything_example_answers_the_same_with_and_without_the_hook() -> None:
    from tests.runtime.hook.hook_support import elicitation_answer, sampling_answer

    output = REPO / "examples" / "everything" / "generated"
    calls = all_calls(output, EVERYTHING_CALLS)
    callbacks = {"sampling_callback": sampling_answer, "elicitation_callback": elicitation_answer}
    module = [sys.executable, "-m", "examples.everything"]
    plain = drive([*module, "--infer"], calls, **callbacks)
    hooked = drive([*module, "--strict"], calls, **callbacks)

    assert exact_json_lines(hooked["tools"]) == exact_json_lines(plain["tools"])
    assert [exact_json_lines(a) for a in hooked["answers"]] == [
        exact_json_lines(a) for a in plain["answers"]
    ], first_difference(calls, plain["answers"], hooked["answers"])
    texts = [block.get("text", "") for a in plain["answers"] for block in a.get("content", [])]
    assert "LLM response: forty-two" in texts  # sampling went through the client
    assert any(t.startswith("User response: action=accept") for t in texts)  # elicitation too
    assert "StaleSchemaWarning" not in hooked["stderr"], hooked["stderr"]
    _assert_coverage("extras-everything", plain["answers"])
