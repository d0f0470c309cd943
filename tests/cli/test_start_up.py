"""``mcp-codegen``'s start-up has one home, ``mcp_codegen._cli.main``: the console script,
``python -m mcp_codegen`` and ``python -m mcp_codegen._cli`` all run it, so the fast dispatch of
``run``, the daemon's delegation and the early workers cannot drift apart between them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.project import codegen_env

#: Replaces the one start-up with a recorder, then runs the entry point as Python would.
PROBE = """\
import runpy, sys
import mcp_codegen._cli as cli
seen = []
cli.main = lambda argv=None: seen.append(argv) or 7
sys.argv = ["mcp-codegen", "generate"]
try:
    runpy.run_module(sys.argv_module, run_name="__main__", alter_sys=True)
except SystemExit as exc:
    print(seen, exc.code)
"""


@pytest.mark.process
@pytest.mark.parametrize("module", ["mcp_codegen", "mcp_codegen._cli"])
def test_every_entry_point_runs_the_one_start_up(module: str, tmp_path: Path) -> None:
    probe = PROBE.replace("sys.argv_module", repr(module))
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=codegen_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # called once, with the process's own command line (argv omitted: own_process), its code
    assert done.stdout.splitlines()[-1] == "[None] 7"


@pytest.mark.process
def test_python_m_starts_the_workers_before_the_commands_import(tmp_path: Path) -> None:
    """As the console script does (tests/generator/workers/test_prestart.py)."""
    probe = (
        "import runpy, sys\n"
        "from mcp_codegen._generator.workers import prestart\n"
        "seen = []\n"
        "real = prestart.start_early\n"
        "def start_early(argv):\n"
        "    seen.append('mcp_codegen._cli.commands' in sys.modules)\n"
        "    return real(argv)\n"
        "prestart.start_early = start_early\n"
        "sys.argv = ['mcp-codegen', 'generate', '--help']\n"
        "try:\n"
        "    runpy.run_module('mcp_codegen', run_name='__main__', alter_sys=True)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(seen)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=codegen_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[False]"
