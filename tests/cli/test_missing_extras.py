"""A command whose extra is not installed names the ``pip install`` line that adds it (exit 2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.project import REPO

SERVE_NEEDS = (
    'mcp-codegen serve needs the official MCP SDK (mcp): pip install "mcp-schema-codegen[server]"'
)

#: Imports of the SDK fail as if it were not installed, though its files are on sys.path (an
#: environment whose import hook hides it): the path where serving, not the start, finds out.
HIDE_SDK = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("mcp", "mcp_types"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Hide())
from mcp_codegen._cli.commands import main
sys.exit(main(sys.argv[1:]))
"""

INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_members",'
    '"arguments":{}}}\n'
)


def _without_site_packages(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -S -m mcp_codegen ARGS``: this checkout only, none of the installed packages
    (the base install's dependencies are not needed by these paths)."""
    return subprocess.run(
        [sys.executable, "-S", "-m", "mcp_codegen", *args],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.process
def test_serve_without_the_sdk_names_the_server_extra() -> None:
    done = _without_site_packages("serve", "--generated", "generated")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip() == SERVE_NEEDS


@pytest.mark.process
def test_watch_without_watchfiles_names_the_watch_extra() -> None:
    done = _without_site_packages("watch")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        'mcp-codegen watch needs watchfiles: pip install "mcp-schema-codegen[watch]"'
    )


@pytest.mark.process
@pytest.mark.parametrize("fast_path", [True, False], ids=["fast-path", "sdk-only"])
def test_serve_with_an_unimportable_sdk_names_the_server_extra(fast_path: bool) -> None:
    """The SDK's files are found but it does not import: the message comes when the SDK is
    needed (the fast path has answered ``initialize`` by then), exit 2, no traceback."""
    done = subprocess.run(
        [sys.executable, "-c", HIDE_SDK, "serve", "--generated", "generated"]
        + ([] if fast_path else ["--no-fast-path"]),
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        input=INITIALIZE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == SERVE_NEEDS
