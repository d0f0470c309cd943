"""The fast path and the SDK door answer the same scripted sessions identically: as JSON, and
byte for byte wherever the order of answers is fixed.

Every protocol revision the installed SDK knows (plus one it does not, negotiated down),
``initialize`` with and without capabilities and client info, malformed messages before and
after ``initialize`` (bad params, wrong id types, a batch, not JSON, ``tools/list`` before
``initialize``), the 2026-07-28 stateless envelope, and calls sent while the SDK is still loading.
The SDK door is the same command with ``MCP_CODEGEN_NO_FAST_PATH=1``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from tests.runtime.stdio.fastpath_support import (
    MALFORMED,
    Step,
    Transcript,
    initialize,
    malformed,
    notification,
    request,
    run_pipelined,
    run_script,
)

pytestmark = pytest.mark.process

UNKNOWN_VERSION = "2099-01-01"
ADD = {"name": "add", "arguments": {"a": 2, "b": 40}}


def _both(script: list[Step], **env: str) -> tuple[Transcript, Transcript]:
    with ThreadPoolExecutor(2) as pool:
        fast = pool.submit(run_script, script, "fast", **env)
        sdk = pool.submit(run_script, script, "sdk")
        return fast.result(), sdk.result()


def _assert_same(fast: Transcript, sdk: Transcript) -> None:
    assert len(fast) == len(sdk), (fast, sdk)
    for number, (ours, theirs) in enumerate(zip(fast, sdk, strict=True)):
        assert ours == theirs, f"answer {number} differs:\nfast: {ours}\nsdk:  {theirs}"
    # Byte for byte too, where the order is fixed: same keys in the same order, same encoding.
    assert fast.raw == sdk.raw


RICH_CLIENT = {
    "capabilities": {
        "experimental": {"x": {"on": True}},
        "elicitation": {"form": {}},
        "sampling": {},
        "roots": {"listChanged": False},
        "unknownCapability": {"y": 1},
    },
    "clientInfo": {"name": "rich", "version": "2", "title": "Rich", "extra": [1]},
    "_meta": {"progressToken": 1},
}


@pytest.mark.parametrize("version", [*KNOWN_PROTOCOL_VERSIONS, UNKNOWN_VERSION])
def test_a_session_answers_alike_at_every_revision(version: str) -> None:
    # One revision's client sends rich client data; without preloading, the SDK is imported
    # only when tools/call arrives (the unknown revision's session).
    opening = (
        request(1, "initialize", {"protocolVersion": version, **RICH_CLIENT})
        if version == "2025-03-26"
        else initialize(1, version)
    )
    env = {"MCP_CODEGEN_FAST_PATH_PRELOAD": "0"} if version == UNKNOWN_VERSION else {}
    script = [
        opening,
        notification("notifications/initialized"),
        request(2, "tools/list"),
        request("two", "tools/list", {"cursor": "ignored"}),
        request(3, "ping"),
        request(4, "ping", {"_meta": {"progressToken": 7}}),
        request(5, "tools/list", {"_meta": {"progressToken": "p"}}),
        # Sent right after tools/list: the SDK is still loading in the fast door.
        request(6, "tools/call", ADD),
        request(7, "tools/list"),
        request(8, "ping"),
        request(9, "logging/setLevel", {"level": "info"}),
        request(10, "tools/call", {"name": "no_such_tool", "arguments": {}}),
    ]
    fast, sdk = _both(script, **env)
    _assert_same(fast, sdk)
    negotiated = version if version != UNKNOWN_VERSION and version < "2026" else None
    assert fast[0]["result"]["protocolVersion"] == (negotiated or LATEST_HANDSHAKE_VERSION)
    assert fast[1]["result"]["tools"], "tools/list listed nothing"
    assert fast[6]["result"]["content"][0]["text"] == '{"result": 42}', fast[6]


def test_initialize_variants_and_malformed_initialize_answer_alike() -> None:
    script = [
        initialize(1, "2025-06-18", capabilities=False),
        initialize(2, "2025-06-18", info=False),
        initialize(3, "2025-06-18", capabilities=False, info=False),
        request(4, "initialize", []),
        request(5, "initialize", {"protocolVersion": 20250618, "capabilities": {}}),
        request(6, "initialize"),
        initialize(7, "2025-11-25"),
        request(8, "tools/list"),
    ]
    fast, sdk = _both(script)
    _assert_same(fast, sdk)
    codes = [answer.get("error", {}).get("code") for answer in fast[:6]]
    assert codes == [-32602, -32602, -32602, -32600, -32602, -32602]  # [] is no JSON-RPC params
    assert fast[6]["result"]["protocolVersion"] == "2025-11-25"


def test_malformed_messages_before_initialize_answer_alike() -> None:
    script = [
        request(1, "tools/list"),
        *(malformed(message) for message in MALFORMED),
        initialize(2, "2025-06-18"),
        request(3, "tools/list"),
    ]
    fast, sdk = _both(script)
    _assert_same(fast, sdk)
    assert fast[0]["error"]["code"] == -32602  # tools/list before initialize


def test_malformed_messages_after_initialize_answer_alike() -> None:
    script = [
        initialize(1, "2025-06-18"),
        notification("notifications/initialized"),
        request(2, "tools/list"),
        *(malformed(message) for message in MALFORMED),
        initialize(3, "2025-11-25"),  # a second initialize: the SDK re-negotiates
        request(4, "tools/list"),
    ]
    fast, sdk = _both(script)
    _assert_same(fast, sdk)


def test_the_stateless_2026_envelope_answers_alike() -> None:
    envelope = {
        PROTOCOL_VERSION_META_KEY: "2026-07-28",
        CLIENT_INFO_META_KEY: {"name": "modern", "version": "1"},
        CLIENT_CAPABILITIES_META_KEY: {},
    }
    script = [
        request(1, "server/discover", {"_meta": envelope}),
        request(2, "tools/list", {"_meta": envelope}),
        request(3, "tools/call", {**ADD, "_meta": envelope}),
    ]
    fast, sdk = _both(script)
    _assert_same(fast, sdk)
    assert fast[1]["result"]["tools"]


def test_pipelined_messages_are_each_answered_once_alike() -> None:
    script = [
        initialize(1, "2025-06-18"),
        notification("notifications/initialized"),
        request(2, "tools/list"),
        request(3, "tools/call", ADD),
        request(4, "ping"),
        request(5, "tools/list"),
        request(6, "tools/call", ADD),
    ]
    with ThreadPoolExecutor(2) as pool:
        fast = pool.submit(run_pipelined, script, "fast")
        sdk = pool.submit(run_pipelined, script, "sdk")
        assert fast.result() == sdk.result()
    assert sorted(fast.result()) == ["1", "2", "3", "4", "5", "6"]
