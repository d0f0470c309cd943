"""fastmcp's registration bookkeeping under ``use_generated`` answers as fastmcp's own walk does.

``mcp_codegen.runtime._hook.fastmcp_index`` replaces two walks over every component per
``add_tool`` with an index. The oracle is fastmcp itself: tests/runtime/hook/probe_fastmcp_index.py
runs the same random sequence of registrations (versioned and not, every ``on_duplicate``
policy), removals, resources and writes behind fastmcp's back in two fresh processes, one
with the index and one without, and the traces (results, fastmcp's own errors, listing order,
wire-schema cache) must be equal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.project import REPO

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

PROBE = Path(__file__).resolve().parent / "probe_fastmcp_index.py"


def _trace(mode: str, seed: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, str(PROBE), mode, str(seed), "60"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_index_answers_as_fastmcps_own_walk(seed: int) -> None:
    indexed, plain = _trace("indexed", seed), _trace("plain", seed)
    assert indexed["indexed"] and not plain["indexed"]  # the index was really in use
    kinds = {step[0][0] for step in plain["trace"]}
    assert {"added", "removed", "error"} <= kinds  # the sequence reached every branch
    assert indexed["trace"] == plain["trace"]
