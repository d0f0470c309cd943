"""Helpers shared by the runtime tests: paths, server commands, sample arguments."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest

# The runtime's inside that tests of other packages drive, reached through this module only:
# an in-process SDK server over a registry, and whether `run`'s fast path serves a target.
from mcp_codegen.runtime._hook.install import fast_path_serves as fast_path_serves
from mcp_codegen.runtime._serve.server import build_server as build_server
from tests.helpers.project import REPO
from tests.helpers.sample_values import minimal_sample, resolve_earlier_results
from tests.helpers.servers import server_env

REPO_ROOT = REPO
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_GENERATED = FIXTURES / "output" / "generated"  # not importable from FIXTURES
EXAMPLES_GENERATED = REPO_ROOT / "generated"
NODE_PROJECT = Path(__file__).resolve().parent / "node"
#: What ``ClientSession.initialize()``, the TypeScript SDK 1.x client and the Inspector CLI
#: negotiate: they get the boxed output variant (tools/list before 2026-07-28).
HANDSHAKE_VERSION = "2025-11-25"

#: Valid arguments for every fixture tool (the e2e tests call each one).
FIXTURE_CALLS: dict[str, dict[str, Any]] = {
    "add": {"a": 2, "b": 40},
    "greet": {"name": "Ada", "style": "shout"},
    "repeat": {"word": "hi", "times": 3},
    "forget": {"note": "nothing to see"},
    "explode": {"reason": "testing"},
    "mislabeled": {},
    "nap": {"seconds": 0},
    "block": {"seconds": 0},
    "pixel": {},
    "two_lines": {"first": "one", "second": "two"},
    "handmade": {"flag": True},
    "find_book": {
        "query": {"text": "Dune", "genre": "science", "tags": ["sand", "worms"]},
        "window": {"start": "1965-08-01", "end": "1965-12-31"},
        "limit": 3,
    },
    "window_stats": {"window": {"start": "2024-01-01", "end": "2024-03-01"}, "genre": "fiction"},
    "latest": {
        "books": [
            {
                "title": "Old",
                "genre": "fiction",
                "published": "1990-01-01",
                "added_at": "2020-01-01T00:00:00Z",
            },
            {
                "title": "New",
                "genre": "science",
                "published": "2020-06-30",
                "added_at": "2021-02-03T04:05:06+00:00",
            },
        ]
    },
}

#: Fixture tools whose call is an isError result by design, even with valid arguments.
FIXTURE_ERRORS = {"explode"}
#: Fixture tools whose structured output breaks their own outputSchema by design.
FIXTURE_BAD_OUTPUT = {"mislabeled"}

_ADDRESS = {
    "recipient": "Ada Finch",
    "street": "1 Quay Street",
    "city": "Bath",
    "postcode": "BA1 1AA",
}
_NEW_MEMBER = {"$result": "register_member", "path": ["member_id"]}

#: Arguments for the example tools, called in registry order. ``{"$result": TOOL, "path": [...]}``
#: stands for a value from the structuredContent of an earlier call in the same session (resolved
#: by the Python tests and by ts_client.mjs alike). Other tools get arguments built from the schema.
EXAMPLE_CALLS: dict[str, dict[str, Any]] = {
    "search_books": {"query": "the", "sort_by": "price", "limit": 5},
    "get_book": {"isbn": "9781861972712"},
    "merge_categories": {
        "tree": {
            "slug": "poetry",
            "name": "Poetry",
            "children": [{"slug": "haiku", "name": "Haiku"}],
        },
        "parent": "books",
    },
    "add_book": {
        "book": {
            "isbn": "9780000000002",
            "title": "A New Leaf",
            "authors": ["Ann Writer"],
            "genre": "fiction",
            "price": "12.50",
            "published": "2024-01-15",
        },
        "initial_stock": 3,
    },
    "tag_book": {"isbn": "9781861972712", "tags": ["Staff-Pick", "signed-copy"]},
    "stock_levels": {"isbns": ["9781861972712", "9780306406157", "9780000000019"]},
    "price_range": {"genre": "science"},
    "describe_book": {"isbn": "9780306406157"},
    "register_member": {
        "name": "Grace Hopper",
        "email": "grace@example.org",
        "joined_on": "2024-04-01",
        "tier": "collector",
    },
    "find_member": {"key": "ada.finch@example.org"},
    "update_preferences": {
        "member_id": _NEW_MEMBER,
        "preferences": {"newsletter": True, "favourite_genres": ["science"]},
    },
    "quote_shipping": {"destination": {**_ADDRESS, "country": "FR"}, "speed": 2},
    "place_order": {
        "member_id": _NEW_MEMBER,
        "lines": [{"isbn": "9781861972712", "quantity": 2}],
        "ship_to": _ADDRESS,
        "placed_at": "2024-04-02T10:00:00+01:00",
        "gift_message": "Enjoy!",
    },
    "reserve_copy": {"isbn": "9780992837464", "member_id": _NEW_MEMBER},
    "cancel_order": {
        "order_id": {"$result": "place_order", "path": ["order_id"]},
        "reason": "changed mind",
    },
    "issue_gift_card": {
        "request": {"amount": 25, "recipient_email": "friend@example.com", "design": "birthday"}
    },
    "adjust_stock": {"9780306406157": 2},
    "sales_report": {"period": ["2024-01-01", "2024-03-31"], "genres": ["children", "fiction"]},
}


def server_args(generated: Path, *extra: str) -> list[str]:
    """Arguments after the interpreter to serve ``generated`` (fixture tools importable)."""
    return [
        "-m",
        "mcp_codegen.runtime",
        "--generated",
        str(generated),
        "--path",
        str(REPO_ROOT),
        "--path",
        str(FIXTURES),
        *extra,
    ]


def example_generated() -> Path:
    """The generated output of the bundled example; fails loudly when it is missing."""
    if not (EXAMPLES_GENERATED / "__init__.py").is_file():
        pytest.fail(
            f"{EXAMPLES_GENERATED}/__init__.py is missing: run `mcp-codegen generate` "
            "to produce the example's generated modules"
        )
    return EXAMPLES_GENERATED


def planned_arguments(tool: dict[str, Any]) -> dict[str, Any]:
    """Arguments for ``tool`` with placeholders: EXAMPLE_CALLS, else built from its schema."""
    template = EXAMPLE_CALLS.get(tool["name"])
    if template is not None:
        return template
    return minimal_sample(tool["inputSchema"], tool["inputSchema"])  # type: ignore[no-any-return]


def sample_arguments(tool: dict[str, Any], earlier: dict[str, Any]) -> dict[str, Any]:
    """Valid arguments for ``tool``, given the structuredContent of earlier calls by tool name."""
    arguments = resolve_earlier_results(planned_arguments(tool), earlier)
    errors = list(jsonschema.Draft202012Validator(tool["inputSchema"]).iter_errors(arguments))
    assert not errors, (
        f"sample arguments for {tool['name']!r} do not match its inputSchema: "
        f"{[error.message for error in errors]}; add an EXAMPLE_CALLS entry"
    )
    return arguments  # type: ignore[no-any-return]


class RawStdioServer:
    """A server subprocess spoken to in raw JSON-RPC lines: what the wire carries, unparsed."""

    def __init__(self, args: list[str], *, timeout: float = 60.0) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=REPO_ROOT,
            env=server_env(),
            text=True,
            encoding="utf-8",
        )
        # A watchdog: a silent server ends the test with a failure instead of hanging it.
        self._watchdog = threading.Timer(timeout, self.process.kill)
        self._watchdog.start()
        self._next_id = 0

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and return its JSON-RPC response (skipping notifications)."""
        self._next_id += 1
        self.notify(method, params, request_id=self._next_id)
        while True:
            line = self.process.stdout.readline()  # type: ignore[union-attr]
            assert line, f"server closed stdout while waiting for {method}"
            message = json.loads(line)
            if message.get("id") == self._next_id:
                return message  # type: ignore[no-any-return]

    def notify(
        self, method: str, params: dict[str, Any] | None = None, *, request_id: int | None = None
    ) -> None:
        """Send one JSON-RPC message."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if request_id is not None:
            message["id"] = request_id
        if params is not None:
            message["params"] = params
        self.process.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def initialize(self, protocol_version: str = "2025-11-25") -> dict[str, Any]:
        """The initialize handshake; returns the server's InitializeResult."""
        response = self.request(
            "initialize",
            {
                "protocolVersion": protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "raw-wire-test", "version": "0"},
            },
        )
        self.notify("notifications/initialized")
        return response["result"]  # type: ignore[no-any-return]

    def close(self) -> None:
        """Close stdin (the stdio shutdown signal) and reap the process."""
        self._watchdog.cancel()
        self.process.stdin.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()  # type: ignore[union-attr]
