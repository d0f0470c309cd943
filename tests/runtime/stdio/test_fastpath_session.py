"""The fast path in process: what it refuses to answer, its wire shapes, and that it is SDK-free."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_types.methods import serialize_server_result

from mcp_codegen.runtime import load_tools
from mcp_codegen.runtime._stdio import wire_shapes as committed
from mcp_codegen.runtime._stdio.fastpath import ReplayReader, Session, sdk_matches
from mcp_codegen.runtime._stdio.shapes import Doubt, dump
from tests.runtime.stdio.fastpath_support import (
    FIXTURE_GENERATED,
    MALFORMED,
    REPO_ROOT,
    door_env,
    server_command,
)
from tests.runtime.stdio.wire_shapes import extract

OUTPUTS = [
    REPO_ROOT / "generated",
    FIXTURE_GENERATED,
    REPO_ROOT / "tests" / "runtime" / "abuse" / "fixtures" / "output" / "generated",
]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _line(message: Any) -> bytes:
    return message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"


def test_the_committed_wire_shapes_match_the_installed_sdk() -> None:
    table = extract()
    assert table["HANDSHAKE_VERSIONS"] == committed.HANDSHAKE_VERSIONS
    assert table["LATEST_HANDSHAKE_VERSION"] == committed.LATEST_HANDSHAKE_VERSION
    assert table["REVISIONS"] == committed.REVISIONS
    assert table["MODELS"] == committed.MODELS, (
        "regenerate: python tests/runtime/stdio/wire_shapes.py"
    )


def test_the_fast_path_runs_only_with_the_sdk_its_shapes_came_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert sdk_matches()  # the installed mcp_types is the one the table was extracted from
    monkeypatch.setattr(committed, "MCP_TYPES_VERSION", "0.0.1")
    assert not sdk_matches()  # another SDK: the SDK door answers everything


def _site(root: Path, types: str | None, sdk: str | None) -> Path:
    """A site-packages directory as pip lays it out: ``mcp_types`` of release ``types`` and
    the SDK ``mcp`` of release ``sdk`` (2.x with its ``server/runner.py``, 1.x without)."""
    if types is not None:
        (root / "mcp_types").mkdir(parents=True)
        (root / "mcp_types" / "__init__.py").write_text("")
        (root / f"mcp_types-{types}.dist-info").mkdir()
    if sdk is not None:
        (root / "mcp" / "server").mkdir(parents=True)
        (root / "mcp" / "__init__.py").write_text("")
        if not sdk.startswith("1."):
            (root / "mcp" / "server" / "runner.py").write_text("")
        (root / f"mcp-{sdk}.dist-info").mkdir()
    return root


@pytest.mark.parametrize(
    ("types", "sdk", "matches", "why"),
    [
        ("2.3.0", "2.3.0", True, None),
        # pip leaves SDK 2.x's types installed when mcp is downgraded to 1.x
        (
            "2.3.0",
            "1.30.0",
            False,
            "it answers as the MCP SDK 2.x does (mcp_types 2.3.0), and mcp 1.30.0 is installed",
        ),
        (
            None,
            "1.30.0",
            False,
            "it answers as the MCP SDK 2.x does (mcp_types 2.3.0), and mcp 1.30.0 is installed",
        ),
        (
            "2.2.0",
            "2.2.0",
            False,
            "the installed mcp_types is release 2.2.0, not 2.3.0, whose "
            "wire shapes the fast path answers with",
        ),
        (
            None,
            None,
            False,
            "no mcp_types is installed (it answers with the wire shapes of mcp_types 2.3.0)",
        ),
    ],
)
def test_the_fast_path_says_which_sdk_keeps_it_off(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    types: str | None,
    sdk: str | None,
    matches: bool,
    why: str | None,
) -> None:
    """Read from the site directories on ``sys.path``, as ``import`` finds the packages; each
    reason names what is installed (it said "is not release 2.3.0" of an mcp_types that was
    not installed at all, and a leftover 2.x mcp_types beside SDK 1.x passed)."""
    from mcp_codegen._shared import distributions
    from mcp_codegen.runtime._stdio.front import _types_mismatch

    monkeypatch.setattr(committed, "MCP_TYPES_VERSION", "2.3.0")
    monkeypatch.setattr(sys, "path", [str(_site(tmp_path, types, sdk))])
    distributions.installed_version.cache_clear()
    distributions._listing.cache_clear()
    try:
        assert sdk_matches() is matches
        if why is not None:
            assert _types_mismatch() == why
    finally:
        distributions.installed_version.cache_clear()
        distributions._listing.cache_clear()


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda path: path.parent.parent.name)
def test_tools_list_is_shaped_exactly_as_the_sdk_shapes_it(output: Path) -> None:
    registry = load_tools(output)
    for version, surface in committed.REVISIONS.items():
        shapes = committed.SURFACES[surface]
        result = {
            "tools": registry.list_tools(version),  # the revision's output variant
            "ttlMs": 0,
            "cacheScope": "private",
            "resultType": "complete",
        }
        ours = dump(result, shapes["results"]["tools/list"])
        theirs = serialize_server_result("tools/list", version, result)
        assert json.dumps(ours) == json.dumps(theirs)  # key order included


def test_a_value_the_sdk_model_would_coerce_or_refuse_is_doubted() -> None:
    shape = committed.SURFACES[committed.REVISIONS["2025-11-25"]]["results"]["tools/list"]
    for tool in (
        {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}},
        {"name": 1, "inputSchema": {"type": "object"}},
        {"name": "t", "inputSchema": {"type": "array"}},
        {"name": "t"},
    ):
        with pytest.raises(Doubt):
            dump({"tools": [tool]}, shape)


@pytest.mark.parametrize("message", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_messages_are_left_to_the_sdk(message: Any) -> None:
    session = Session(load_tools(FIXTURE_GENERATED), name="t")
    assert session.answer(_line(message)) is None  # before initialize
    assert session.answer(_line(INITIALIZE))
    assert session.answer(_line(message)) is None  # and after


def test_only_the_opening_is_answered() -> None:
    session = Session(load_tools(FIXTURE_GENERATED), name="t")
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert session.answer(_line(ping)) is None  # the SDK answers everything before initialize
    assert json.loads(session.answer(_line(INITIALIZE)) or b"")["id"] == 1
    assert session.answer(_line({"jsonrpc": "2.0", "method": "notifications/initialized"})) == b""
    assert json.loads(session.answer(_line(ping)) or b"") == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {},
    }
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add"}}
    assert session.answer(_line(call)) is None
    assert session.answer(_line(INITIALIZE)) is None  # a second initialize
    assert session.answered == {1}
    assert len(session.replay) == 2  # initialize and initialized, for the SDK to replay


def test_the_replay_reader_continues_the_wire_where_the_fast_path_left_it() -> None:
    reader = ReplayReader(b"one\ntw", io.BytesIO(b"o\nthree\n"))
    assert reader.readline(100) == b"one\n"
    assert reader.readline(100) == b"two\n"  # a partial line joins the wire's rest
    assert reader.readline(3) == b"thr"
    assert reader.readline(100) == b"ee\n"
    assert reader.readline(100) == b""
    limited = ReplayReader(b"abcdef\n", io.BytesIO(b""))
    assert limited.readline(4) == b"abcd"
    assert limited.readline(-1) == b"ef\n"


def _imported(session: list[Any], **env: str) -> tuple[list[Any], set[str]]:
    lines = b"".join(_line(message) for message in session)
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", *server_command()[1:]],
        input=lines,
        capture_output=True,
        cwd=REPO_ROOT,
        env=door_env("fast", **env),
        timeout=120,
        check=True,
    )
    modules = {
        line.rsplit("|", 1)[-1].strip()
        for line in completed.stderr.decode().splitlines()
        if line.startswith("import time:")
    }
    return [json.loads(line) for line in completed.stdout.splitlines()], modules


@pytest.mark.slow
@pytest.mark.process
def test_the_fast_path_answers_without_importing_the_sdk() -> None:
    opening = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    answers, modules = _imported(opening, MCP_CODEGEN_FAST_PATH_PRELOAD="0")
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    heavy = {"mcp", "mcp_types", "pydantic", "anyio", "typing", "asyncio", "logging", "argparse"}
    heavy &= modules
    assert heavy == set(), heavy
    # The control: a call hands the session over, and then the SDK is imported.
    call = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1}},
    }
    _, modules = _imported([*opening, call], MCP_CODEGEN_FAST_PATH_PRELOAD="0")
    assert {"mcp", "pydantic"} <= modules
